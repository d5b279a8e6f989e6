#include "walk/native/ElfImage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace candor {

namespace {
// count * size bytes at offset lie inside `total` (no overflow).
bool fits(uint64_t offset, uint64_t count, uint64_t size, uint64_t total) {
  if (offset > total || size == 0) return count == 0 && offset <= total;
  return count <= (total - offset) / size;
}
}  // namespace

std::unique_ptr<ElfImage> ElfImage::open(const std::string& path, std::string* why) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return *why = path + ": " + strerror(errno), nullptr;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    close(fd);
    return *why = path + ": not a regular, non-empty file", nullptr;
  }
  void* m = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return *why = path + ": mmap: " + strerror(errno), nullptr;
  auto image = fromFileBytes(static_cast<const uint8_t*>(m), st.st_size, why);
  if (image == nullptr) {
    munmap(m, st.st_size);
    *why = path + ": " + *why;
    return nullptr;
  }
  image->mapping_ = m;
  return image;
}

std::unique_ptr<ElfImage> ElfImage::fromFileBytes(const uint8_t* data, uint64_t size, std::string* why) {
  std::unique_ptr<ElfImage> image(new ElfImage());
  image->file_ = data;
  image->fileSize_ = size;
  if (!image->parseHeader(why)) return nullptr;
  return image;
}

std::unique_ptr<ElfImage> ElfImage::fromLoaded(uintptr_t bias, const Elf64_Phdr* phdrs, uint32_t phnum) {
  std::unique_ptr<ElfImage> image(new ElfImage());
  image->bias_ = bias;
  image->parsePrograms(phdrs, phnum);
  return image;
}

ElfImage::~ElfImage() {
  if (mapping_ != nullptr) munmap(mapping_, fileSize_);
}

bool ElfImage::parseHeader(std::string* why) {
  Elf64_Ehdr eh;
  if (fileSize_ < sizeof eh) return *why = "too short for an ELF header", false;
  memcpy(&eh, file_, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return *why = "no ELF magic", false;
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return *why = "not a little-endian ELF64 file", false;
  }
  machine_ = eh.e_machine;
  if (eh.e_phentsize >= sizeof(Elf64_Phdr) && fits(eh.e_phoff, eh.e_phnum, eh.e_phentsize, fileSize_)) {
    // Program headers may be unaligned in a hostile file: copy each one out.
    for (uint32_t i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      memcpy(&ph, file_ + eh.e_phoff + uint64_t(i) * eh.e_phentsize, sizeof ph);
      parsePrograms(&ph, 1);
    }
  }
  if (eh.e_shentsize >= sizeof(Elf64_Shdr) && fits(eh.e_shoff, eh.e_shnum, eh.e_shentsize, fileSize_)) {
    std::vector<Elf64_Shdr> raw(eh.e_shnum);
    for (uint32_t i = 0; i < eh.e_shnum; i++) {
      memcpy(&raw[i], file_ + eh.e_shoff + uint64_t(i) * eh.e_shentsize, sizeof(Elf64_Shdr));
    }
    ByteReader names;
    if (eh.e_shstrndx < raw.size()) names = fileBytes(raw[eh.e_shstrndx].sh_offset, raw[eh.e_shstrndx].sh_size);
    for (const Elf64_Shdr& s : raw) {
      ElfSection out{{}, s.sh_type, s.sh_link, s.sh_addr, s.sh_offset, s.sh_size, s.sh_entsize};
      ByteReader n = names.atOffset(s.sh_name);
      const char* name = names.size() > 0 ? n.cstr() : nullptr;
      if (name != nullptr) out.name = name;
      sections_.push_back(out);
    }
  }
  return true;
}

void ElfImage::parsePrograms(const Elf64_Phdr* phdrs, uint32_t phnum) {
  for (uint32_t i = 0; i < phnum; i++) {
    const Elf64_Phdr& p = phdrs[i];
    ElfSegment seg{p.p_vaddr, p.p_memsz, p.p_offset, p.p_filesz < p.p_memsz ? p.p_filesz : p.p_memsz,
                   p.p_flags};
    if (p.p_type == PT_LOAD) loads_.push_back(seg);
    if (p.p_type == PT_NOTE) notes_.push_back(seg);
    if (p.p_type == PT_GNU_EH_FRAME) ehHdrAddr_ = p.p_vaddr, ehHdrSize_ = p.p_memsz;
  }
}

ByteReader ElfImage::fileBytes(uint64_t offset, uint64_t size) const {
  if (file_ == nullptr || !fits(offset, size, 1, fileSize_)) return ByteReader::invalid();
  return ByteReader(file_ + offset, size, 0);
}

ByteReader ElfImage::readerAt(uint64_t vaddr) const {
  for (const ElfSegment& s : loads_) {
    if (!(s.flags & PF_R) || vaddr < s.vaddr || vaddr - s.vaddr >= s.filesz) continue;
    ByteReader whole;
    if (file_ != nullptr) {
      // A truncated file holds fewer bytes than the header claims: clamp to what exists.
      if (s.offset >= fileSize_) continue;
      uint64_t avail = fileSize_ - s.offset < s.filesz ? fileSize_ - s.offset : s.filesz;
      whole = ByteReader(file_ + s.offset, avail, s.vaddr);
    } else {
      whole = ByteReader(reinterpret_cast<const uint8_t*>(bias_ + s.vaddr), s.filesz, s.vaddr);
    }
    ByteReader r = whole.at(vaddr);
    if (r.ok() && !r.atEnd()) return r;
  }
  return ByteReader::invalid();  // !ok
}

const ElfSection* ElfImage::section(std::string_view name) const {
  for (const ElfSection& s : sections_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

ByteReader ElfImage::sectionBytes(const ElfSection& s) const {
  if (s.type == SHT_NOBITS) return ByteReader(nullptr, 0, s.addr);
  ByteReader r = fileBytes(s.offset, s.size);
  return r.ok() ? ByteReader(file_ + s.offset, s.size, s.addr) : r;
}

bool ElfImage::forEachSymbol(bool dynamic, const std::function<void(const ElfSymbol&)>& f) const {
  uint32_t wanted = dynamic ? SHT_DYNSYM : SHT_SYMTAB;
  for (const ElfSection& s : sections_) {
    if (s.type != wanted || s.entsize < sizeof(Elf64_Sym) || s.link >= sections_.size()) continue;
    ByteReader syms = sectionBytes(s);
    ByteReader strs = sectionBytes(sections_[s.link]);
    if (!syms.ok() || !strs.ok()) continue;
    uint64_t count = syms.size() / s.entsize;  // entsize >= sizeof(Elf64_Sym): each one fits
    for (uint64_t i = 0; i < count; i++) {
      Elf64_Sym sym;
      memcpy(&sym, file_ + s.offset + i * s.entsize, sizeof sym);
      if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF) continue;
      ByteReader n = strs.atOffset(sym.st_name);
      const char* name = n.cstr();
      if (name == nullptr || *name == 0) continue;
      f(ElfSymbol{name, sym.st_value, sym.st_size, uint8_t(ELF64_ST_TYPE(sym.st_info)),
                  uint8_t(ELF64_ST_BIND(sym.st_info))});
    }
    return true;
  }
  return false;
}

std::string ElfImage::buildId() const {
  std::vector<ByteReader> notes;
  for (const ElfSection& s : sections_) {
    if (s.type == SHT_NOTE) notes.push_back(sectionBytes(s));
  }
  for (const ElfSegment& n : notes_) notes.push_back(readerAt(n.vaddr).sub(n.filesz));
  for (ByteReader r : notes) {
    while (r.ok() && r.remaining() >= 12) {
      uint32_t namesz = r.u32(), descsz = r.u32(), type = r.u32();
      ByteReader name = r.sub(namesz);
      r.skip((uint64_t(namesz) + 3) & ~uint64_t(3));
      ByteReader desc = r.sub(descsz);
      r.skip((uint64_t(descsz) + 3) & ~uint64_t(3));
      if (!r.ok() || type != NT_GNU_BUILD_ID || namesz != 4 || name.u32() != 0x00554e47) continue;  // "GNU\0"
      std::string hex;
      static const char kDigits[] = "0123456789abcdef";
      while (!desc.atEnd()) {
        uint8_t b = desc.u8();
        hex += kDigits[b >> 4];
        hex += kDigits[b & 15];
      }
      return hex;
    }
  }
  return {};
}

}  // namespace candor
