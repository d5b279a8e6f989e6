// An ELF64 image as a read-only view, on ordinary threads only (profiling start, the writer):
//  - a file, mapped read-only: sections, .symtab/.dynsym, notes, and its segments' bytes;
//  - a module as the loader mapped it (from dl_iterate_phdr's program headers): only its
//    PT_LOAD segments' bytes, enough for .eh_frame_hdr/.eh_frame (PT_GNU_EH_FRAME lies in a
//    loaded segment), so unwind tables need no file reads and work for the vdso too.
// Untrusted input: every offset, size and name is checked against the bytes that exist, so a
// truncated or garbage file yields an image with fewer parts, never a read out of bounds.
// Addresses are link-time virtual addresses (the module's load bias is added by the caller).
#pragma once
#include <elf.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "walk/native/ByteReader.h"

namespace candor {

struct ElfSegment {  // a PT_LOAD program header
  uint64_t vaddr, memsz, offset, filesz;
  uint32_t flags;  // PF_R | PF_W | PF_X
};

struct ElfSection {
  std::string_view name;
  uint32_t type, link;
  uint64_t addr, offset, size, entsize;
};

struct ElfSymbol {
  std::string_view name;
  uint64_t value, size;
  uint8_t type, binding;  // STT_*, STB_*
};

class ElfImage {
 public:
  // A file mapped read-only for the image's lifetime; nullptr with *why when it is no ELF64.
  static std::unique_ptr<ElfImage> open(const std::string& path, std::string* why);
  // Bytes laid out as a file (the vdso's image, tests, fuzzing). Not copied: must outlive it.
  static std::unique_ptr<ElfImage> fromFileBytes(const uint8_t* data, uint64_t size, std::string* why);
  // A loaded module: `bias` + vaddr is where each PT_LOAD segment's bytes are mapped. The caller
  // keeps the module loaded while the image is used.
  static std::unique_ptr<ElfImage> fromLoaded(uintptr_t bias, const Elf64_Phdr* phdrs, uint32_t phnum);
  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  uint16_t machine() const { return machine_; }  // EM_X86_64; 0 when unknown (loaded modules)
  const std::vector<ElfSegment>& loadSegments() const { return loads_; }
  // PT_GNU_EH_FRAME: the .eh_frame_hdr's address and size; {0, 0} when absent.
  uint64_t ehFrameHdrAddr() const { return ehHdrAddr_; }
  uint64_t ehFrameHdrSize() const { return ehHdrSize_; }
  // The bytes from `vaddr` to the end of the readable segment containing it (!ok when none).
  ByteReader readerAt(uint64_t vaddr) const;

  // Sections (files only; empty for loaded modules and for files without section headers).
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* section(std::string_view name) const;
  ByteReader sectionBytes(const ElfSection& s) const;  // file bytes; empty for SHT_NOBITS
  // Calls f for every named, defined symbol of .symtab (dynamic = false) or .dynsym.
  // false when the image has no such table.
  bool forEachSymbol(bool dynamic, const std::function<void(const ElfSymbol&)>& f) const;
  // NT_GNU_BUILD_ID as lower-case hex; empty when there is none.
  std::string buildId() const;

 private:
  ElfImage() = default;
  bool parseHeader(std::string* why);
  void parsePrograms(const Elf64_Phdr* phdrs, uint32_t phnum);
  void parseSections();
  ByteReader fileBytes(uint64_t offset, uint64_t size) const;

  const uint8_t* file_ = nullptr;  // the file's bytes, or nullptr for a loaded module
  uint64_t fileSize_ = 0;
  void* mapping_ = nullptr;  // our own mmap of file_, unmapped in the destructor
  uintptr_t bias_ = 0;       // loaded modules: where vaddr 0 would be
  uint16_t machine_ = 0;
  std::vector<ElfSegment> loads_;
  std::vector<ElfSegment> notes_;  // PT_NOTE, for the build id
  uint64_t ehHdrAddr_ = 0, ehHdrSize_ = 0;
  std::vector<ElfSection> sections_;
};

}  // namespace candor
