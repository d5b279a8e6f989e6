// Bad input never crashes the ELF and CFI parsers: garbage bytes, a real library cut at many
// points (also as a loaded image whose segment ends inside .eh_frame) and randomly mutated
// copies. Each input sits right before a PROT_NONE page, so a read past its end would fault
// and fail the test instead of passing unnoticed.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "walk/native/DwarfCfi.h"
#include "walk/native/ElfFuzz.h"
#include "walk/native/ElfImage.h"

using namespace candor;

namespace {
constexpr const char* kLibrary = "/lib/x86_64-linux-gnu/libz.so.1";
constexpr size_t kPage = 4096;

// `size` bytes that end exactly where an unreadable page begins.
class GuardedBytes {
 public:
  explicit GuardedBytes(const uint8_t* data, size_t size) : size_(size) {
    mapped_ = (size + kPage - 1) / kPage * kPage + kPage;
    base_ = static_cast<uint8_t*>(mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base_ + mapped_ - kPage, kPage, PROT_NONE);
    data_ = base_ + mapped_ - kPage - size;
    if (size > 0) memcpy(data_, data, size);
  }
  ~GuardedBytes() { munmap(base_, mapped_); }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* base_;
  uint8_t* data_;
  size_t size_, mapped_;
};

std::vector<uint8_t> readFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint64_t exercise(const std::vector<uint8_t>& bytes, size_t size) {
  GuardedBytes g(bytes.data(), size);
  return exerciseElfBytes(g.data(), g.size());
}
}  // namespace

TEST(NativeRobustness, GarbageIsRejectedOrParsedWithoutCrashing) {
  std::mt19937_64 rng(42);
  std::vector<uint8_t> bytes(65536);
  for (size_t size : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(4096), size_t(65536)}) {
    for (int round = 0; round < 20; round++) {
      for (auto& b : bytes) b = uint8_t(rng());
      if (size >= 64 && round % 2 == 0) {  // a valid-looking header over garbage tables
        static const uint8_t kIdent[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
        memcpy(bytes.data(), kIdent, sizeof kIdent);
      }
      exercise(bytes, size);
    }
  }
  std::string why;
  uint8_t empty = 0;
  EXPECT_EQ(ElfImage::fromFileBytes(&empty, 0, &why), nullptr);
  EXPECT_EQ(why, "too short for an ELF header");
}

TEST(NativeRobustness, TruncatedLibraryFiles) {
  std::vector<uint8_t> lib = readFile(kLibrary);
  ASSERT_GT(lib.size(), 10000u);
  uint64_t whole = exercise(lib, lib.size());
  EXPECT_GT(whole, 0u);
  for (size_t cut = 1; cut < lib.size(); cut += 1 + lib.size() / 300) exercise(lib, cut);
}

// A loaded image whose readable segment ends inside .eh_frame: the FDEs past the end are not
// read, the ones before still give rows.
TEST(NativeRobustness, LoadedImageCutInsideEhFrame) {
  std::vector<uint8_t> lib = readFile(kLibrary);
  std::string why;
  auto file = ElfImage::fromFileBytes(lib.data(), lib.size(), &why);
  ASSERT_NE(file, nullptr) << why;
  const ElfSection* ehFrame = file->section(".eh_frame");
  ASSERT_NE(ehFrame, nullptr);
  ASSERT_EQ(ehFrame->addr, ehFrame->offset) << "the test lays the file out at its addresses";
  size_t full = DwarfCfi::parse(*file).rows().size();
  size_t previous = 0;
  for (uint64_t cut = ehFrame->offset; cut <= ehFrame->offset + ehFrame->size; cut += 1 + ehFrame->size / 50) {
    GuardedBytes g(lib.data(), cut);
    Elf64_Phdr ph[2] = {};
    ph[0].p_type = PT_LOAD, ph[0].p_flags = PF_R, ph[0].p_filesz = ph[0].p_memsz = cut;
    ph[1].p_type = PT_GNU_EH_FRAME, ph[1].p_vaddr = file->ehFrameHdrAddr(), ph[1].p_memsz = file->ehFrameHdrSize();
    auto loaded = ElfImage::fromLoaded(reinterpret_cast<uintptr_t>(g.data()), ph, 2);
    DwarfCfi cfi = DwarfCfi::parse(*loaded);
    EXPECT_LE(cfi.rows().size(), full);
    EXPECT_GE(cfi.rows().size() + 2, previous);  // more bytes never give (noticeably) fewer rows
    previous = cfi.rows().size();
  }
  EXPECT_GT(previous, full / 2);
}

TEST(NativeRobustness, MutatedLibraryCopies) {
  std::vector<uint8_t> lib = readFile(kLibrary);
  std::string why;
  auto file = ElfImage::fromFileBytes(lib.data(), lib.size(), &why);
  ASSERT_NE(file, nullptr) << why;
  // Mutations aim at what the parsers read: headers, .eh_frame_hdr, .eh_frame, symbols.
  std::vector<std::pair<uint64_t, uint64_t>> targets = {{0, 1024}};
  for (const char* name : {".eh_frame_hdr", ".eh_frame", ".dynsym", ".dynstr", ".shstrtab"}) {
    if (const ElfSection* s = file->section(name)) targets.emplace_back(s->offset, s->size);
  }
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; round++) {
    std::vector<uint8_t> copy = lib;
    auto [offset, size] = targets[rng() % targets.size()];
    int flips = 1 + int(rng() % 16);
    for (int i = 0; i < flips && size > 0; i++) copy[offset + rng() % size] = uint8_t(rng());
    exercise(copy, copy.size());
  }
}
