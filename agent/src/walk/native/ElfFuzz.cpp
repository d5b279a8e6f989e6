#include "walk/native/ElfFuzz.h"

#include "walk/native/DwarfCfi.h"
#include "walk/native/ElfImage.h"
#include "walk/native/SymbolTable.h"

namespace candor {

uint64_t exerciseElfBytes(const uint8_t* data, size_t size) {
  std::string why;
  auto image = ElfImage::fromFileBytes(data, size, &why);
  if (image == nullptr) return why.size();
  DwarfCfi cfi = DwarfCfi::parse(*image);
  uint64_t sum = cfi.stats().rows + cfi.stats().badFdes + image->buildId().size();
  const auto& rows = cfi.rows();
  for (size_t i = 0; i < rows.size(); i += 1 + rows.size() / 64) {
    const CfiRow* r = DwarfCfi::find_signalSafe(rows.data(), uint32_t(rows.size()), rows[i].pc + 1);
    sum += r != nullptr ? uint64_t(r->cfa) : 1;
  }
  std::string source;
  SymbolTable symbols = SymbolTable::fromImage(*image, &source);
  for (size_t i = 0; i < symbols.size(); i += 1 + symbols.size() / 64) {
    sum += symbols.find(symbols.start(int64_t(i))) + symbols.name(int64_t(i))[0];
  }
  return sum;
}

}  // namespace candor
