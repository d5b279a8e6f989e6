#include "walk/native/DwarfCfi.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "walk/native/CfaProgram.h"

namespace candor {

namespace {
constexpr uint8_t kHdrTableEncoding = eh_pe::kDataRel | eh_pe::kSdata4;  // what ld and lld write

// Reads CIEs and FDEs out of the image; CIEs are parsed once each (a library has a handful).
class EhFrameParser {
 public:
  EhFrameParser(const ElfImage& image, std::vector<CfiRow>* rows, CfiStats* stats)
      : image_(image), rows_(rows), stats_(stats) {}

  // The entry (CIE or FDE) at `r`'s position: runs an FDE's program; *next gets the address
  // after the entry, 0 at the terminator or when the entry is malformed.
  void entry(ByteReader r, uint64_t* next) {
    uint64_t length = r.u32();
    if (length == 0xffffffff) length = r.u64();
    ByteReader body = r.sub(length);
    *next = (length == 0 || !body.ok()) ? 0 : body.addr() + length;
    if (!body.ok() || length < 4) return;
    uint64_t idAddr = body.addr();
    uint32_t id = body.u32();
    if (id == 0) return;  // a CIE: parsed when an FDE names it
    stats_->fdes++;
    const CieInfo* cie = cieAt(idAddr - id);
    if (cie == nullptr) return void(stats_->badFdes++);
    uint64_t begin = body.encoded(cie->fdeEncoding);
    uint64_t range = body.encoded(cie->fdeEncoding & eh_pe::kFormatMask);
    if (cie->hasAugData) body.skip(body.uleb());
    // Zero-address FDEs are leftovers of functions the linker dropped; rows are 32-bit.
    if (!body.ok() || begin == 0 || range == 0 || begin > UINT32_MAX || range > UINT32_MAX - begin) {
      return void(stats_->badFdes++);
    }
    CfaProgram(*cie, rows_, stats_).run(begin, range, body);
  }

 private:
  const CieInfo* cieAt(uint64_t addr) {
    auto found = cies_.find(addr);
    if (found != cies_.end()) return found->second.ok ? &found->second.info : nullptr;
    Parsed& p = cies_[addr];
    p.ok = parseCie(image_.readerAt(addr), &p.info);
    return p.ok ? &p.info : nullptr;
  }

  static bool parseCie(ByteReader r, CieInfo* cie) {
    uint64_t length = r.u32();
    if (length == 0xffffffff) length = r.u64();
    ByteReader body = r.sub(length);
    if (body.u32() != 0) return false;  // not a CIE
    uint8_t version = body.u8();
    const char* aug = body.cstr();
    if (!body.ok() || (version != 1 && version != 3 && version != 4) || strstr(aug, "eh") != nullptr) return false;
    if (version == 4) body.skip(2);  // address and segment selector sizes
    cie->codeAlign = body.uleb();
    cie->dataAlign = body.sleb();
    cie->raRegister = version == 1 ? body.u8() : body.uleb();
    if (aug[0] == 'z') {
      cie->hasAugData = true;
      uint64_t len = body.uleb();
      ByteReader data = body.sub(len);
      body.skip(len);
      for (const char* a = aug + 1; *a != 0 && data.ok(); a++) {
        if (*a == 'R') {
          cie->fdeEncoding = data.u8();
        } else if (*a == 'L') {
          data.u8();
        } else if (*a == 'P') {
          uint8_t enc = data.u8();
          data.encoded(enc & eh_pe::kFormatMask);  // the personality routine: skipped, not followed
        } else if (*a == 'S') {
          cie->signalFrame = true;
        } else if (*a != 'B') {
          break;  // unknown: the data length still lets FDEs be read
        }
      }
    } else if (aug[0] != 0) {
      return false;  // without "z" an unknown augmentation hides where the instructions start
    }
    cie->initial = body;
    // x86-64 uses 1 and -8; anything large is garbage (and would overflow the arithmetic).
    constexpr int64_t kMaxFactor = 1 << 16;
    bool sane = cie->codeAlign != 0 && cie->codeAlign <= uint64_t(kMaxFactor) && cie->dataAlign >= -kMaxFactor &&
                cie->dataAlign <= kMaxFactor;
    return body.ok() && sane;
  }

  struct Parsed {
    CieInfo info;
    bool ok = false;
  };
  const ElfImage& image_;
  std::vector<CfiRow>* rows_;
  CfiStats* stats_;
  std::unordered_map<uint64_t, Parsed> cies_;
};
}  // namespace

DwarfCfi DwarfCfi::parse(const ElfImage& image) {
  DwarfCfi cfi;
  if (image.machine() != 0 && image.machine() != EM_X86_64) {
    cfi.stats_.failure = "not an x86-64 image";
    return cfi;
  }
  EhFrameParser parser(image, &cfi.rows_, &cfi.stats_);
  uint64_t hdrAddr = image.ehFrameHdrAddr();
  ByteReader frames = ByteReader::invalid();  // .eh_frame, walked when there is no usable table
  if (hdrAddr != 0) {
    ByteReader hdr = image.readerAt(hdrAddr);
    uint8_t version = hdr.u8(), ptrEnc = hdr.u8(), countEnc = hdr.u8(), tableEnc = hdr.u8();
    uint64_t ehFrame = hdr.encoded(ptrEnc, hdrAddr);
    uint64_t count = hdr.encoded(countEnc, hdrAddr);
    if (!hdr.ok() || version != 1) {
      cfi.stats_.failure = "unreadable .eh_frame_hdr";
      return cfi;
    }
    if (tableEnc == kHdrTableEncoding && count <= hdr.remaining() / 8) {
      for (uint64_t i = 0; i < count; i++) {
        hdr.encoded(tableEnc, hdrAddr);  // the function's start: the FDE says it again
        uint64_t next;
        parser.entry(image.readerAt(hdr.encoded(tableEnc, hdrAddr)), &next);
      }
    } else {
      frames = image.readerAt(ehFrame);
    }
  } else if (const ElfSection* s = image.section(".eh_frame")) {
    frames = image.sectionBytes(*s);
  } else {
    cfi.stats_.failure = "no .eh_frame_hdr or .eh_frame";
    return cfi;
  }
  for (uint64_t next = 0; frames.ok() && !frames.atEnd();) {
    parser.entry(frames, &next);
    frames = next == 0 ? ByteReader::invalid() : frames.at(next);
  }
  cfi.finish();
  return cfi;
}

void DwarfCfi::finish() {
  // Where one FDE ends and the next begins at the same pc, the real row must win over the
  // first one's kNone: stable sort puts kNone first among equal pcs, and the last one is kept.
  std::stable_sort(rows_.begin(), rows_.end(), [](const CfiRow& a, const CfiRow& b) {
    if (a.pc != b.pc) return a.pc < b.pc;
    return a.kind() == CfaKind::kNone && b.kind() != CfaKind::kNone;
  });
  size_t kept = 0;
  for (size_t i = 0; i < rows_.size(); i++) {
    if (i + 1 < rows_.size() && rows_[i + 1].pc == rows_[i].pc) continue;
    if (kept > 0 && rows_[kept - 1].sameRule(rows_[i])) continue;
    if (kept == 0 && rows_[i].kind() == CfaKind::kNone) continue;
    rows_[kept++] = rows_[i];
  }
  rows_.resize(kept);
  rows_.shrink_to_fit();
  stats_.rows = static_cast<uint32_t>(kept);
  for (const CfiRow& r : rows_) {
    switch (r.kind()) {
      case CfaKind::kPlt: stats_.pltRows++; break;
      case CfaKind::kSignal: stats_.signalRows++; break;
      case CfaKind::kOutermost: stats_.outermostRows++; break;
      case CfaKind::kUnsupported: stats_.unsupportedRows++; break;
      default: break;
    }
  }
}

const CfiRow* DwarfCfi::find_signalSafe(const CfiRow* rows, uint32_t count, uint64_t pc) {
  if (count == 0 || pc < rows[0].pc || pc > UINT32_MAX) return nullptr;
  // Branch-free binary search (a conditional move per level): the searched pcs are random to
  // the branch predictor, and mispredicted branches were most of a step's cost.
  // Invariant: base->pc <= pc, and the answer is in [base, base + n).
  const CfiRow* base = rows;
  for (uint32_t n = count; n > 1;) {
    uint32_t half = n / 2;
    base = base[half].pc <= pc ? base + half : base;
    n -= half;
  }
  return base->kind() == CfaKind::kNone ? nullptr : base;
}

}  // namespace candor
