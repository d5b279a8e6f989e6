#include "walk/vm/VmLayout.h"

#include <vector>

#include "jvm/VmStructsTable.h"

namespace candor {

namespace {

// Collects lookups and remembers the first few names that were missing, for the one log line.
class Picker {
 public:
  explicit Picker(const VmStructsTable& t) : t_(t) {}

  bool has(const char* type, const char* name) const { return t_.field(type, name) != nullptr; }

  int32_t off(const char* type, const char* name) {
    const VmField* f = t_.field(type, name);
    if (f == nullptr || f->isStatic) return miss(type, name);
    return static_cast<int32_t>(f->offset);
  }
  VmOff sized(const char* type, const char* name) {
    VmOff o;
    const VmField* f = t_.field(type, name);
    if (f == nullptr || f->isStatic) {
      miss(type, name);
      return o;
    }
    o.off = static_cast<int32_t>(f->offset);
    o.size = widthOf(f->type);
    return o;
  }
  template <typename T>
  T* addr(const char* type, const char* name) {
    const VmField* f = t_.field(type, name);
    if (f == nullptr || !f->isStatic || f->address == nullptr) {
      miss(type, name);
      return nullptr;
    }
    return static_cast<T*>(f->address);
  }
  int32_t size(const char* type) {
    int64_t s = t_.typeSize(type);
    if (s <= 0) {
      missing_.push_back(std::string("sizeof(") + type + ")");
      return -1;
    }
    return static_cast<int32_t>(s);
  }
  int32_t constant(const char* name, int32_t fallback, bool required) {
    int64_t v;
    if (t_.intConstant(name, &v)) return static_cast<int32_t>(v);
    if (required) missing_.push_back(name);
    return fallback;
  }
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  int32_t miss(const char* type, const char* name) {
    missing_.push_back(std::string(type) + "::" + name);
    return -1;
  }
  uint8_t widthOf(const std::string& type) const {
    if (!type.empty() && (type.back() == '*' || type == "address")) return 8;
    int64_t s = t_.typeSize(type);
    if (s == 1 || s == 2 || s == 4 || s == 8) return static_cast<uint8_t>(s);
    if (type == "int16_t" || type == "uint16_t") return 2;
    if (type.find("signed char") != std::string::npos) return 1;
    return 8;
  }
  const VmStructsTable& t_;
  std::vector<std::string> missing_;
};

void loadCodeCache(Picker& p, VmLayout* l) {
  l->lowBound = p.addr<uintptr_t>("CodeCache", "_low_bound");
  l->highBound = p.addr<uintptr_t>("CodeCache", "_high_bound");
  auto* heapsArray = p.addr<uintptr_t>("CodeCache", "_heaps");
  int32_t len = p.off("GrowableArrayBase", "_len");
  int32_t data = p.off("GrowableArray<int>", "_data");
  if (heapsArray != nullptr && *heapsArray != 0 && len >= 0 && data >= 0) {
    auto array = reinterpret_cast<const char*>(*heapsArray);  // fixed once the VM is up
    int n = *reinterpret_cast<const int32_t*>(array + len);
    auto elems = *reinterpret_cast<const uintptr_t* const*>(array + data);
    for (int i = 0; i < n && l->heapCount < VmLayout::kMaxHeaps; i++) l->heaps[l->heapCount++] = elems[i];
  }
  int32_t memory = p.off("CodeHeap", "_memory");
  int32_t segmap = p.off("CodeHeap", "_segmap");
  int32_t low = p.off("VirtualSpace", "_low");
  int32_t high = p.off("VirtualSpace", "_high");
  if (memory >= 0 && segmap >= 0 && low >= 0 && high >= 0) {
    l->heapMemoryLow = memory + low;
    l->heapMemoryHigh = memory + high;
    l->heapSegmapLow = segmap + low;
  }
  l->heapLog2Segment = p.off("CodeHeap", "_log2_segment_size");
  l->heapBlockSize = p.size("HeapBlock");
  l->blockUsed = p.sized("HeapBlock::Header", "_used");
}

void loadCodeBlob(Picker& p, VmLayout* l) {
  l->blobName = p.off("CodeBlob", "_name");
  l->blobFrameSize = p.sized("CodeBlob", "_frame_size");
  l->blobFrameComplete = p.sized("CodeBlob", "_frame_complete_offset");
  l->codeAsOffsets = p.has("CodeBlob", "_code_offset");
  if (l->codeAsOffsets) {  // JDK 23+
    l->blobCodeBegin = p.sized("CodeBlob", "_code_offset");
    l->blobCodeEnd = p.sized("CodeBlob", "_data_offset");
    l->blobKind = p.sized("CodeBlob", "_kind");
    l->kindNmethod = p.constant("CodeBlobKind::Nmethod", -1, true);
  } else {
    l->blobCodeBegin = p.sized("CodeBlob", "_code_begin");
    l->blobCodeEnd = p.sized("CodeBlob", "_code_end");
  }
}

void loadNmethod(Picker& p, VmLayout* l) {
  l->immutableData = p.has("nmethod", "_immutable_data");
  l->nmOrigPcOffset = p.sized("nmethod", "_orig_pc_offset");
  l->nmPcsBegin = p.sized("nmethod", "_scopes_pcs_offset");
  if (p.has("nmethod", "_compile_id")) l->nmCompileId = p.sized("nmethod", "_compile_id");
  if (l->immutableData) {  // JDK 25
    l->nmMethod = p.off("nmethod", "_method");
    l->nmImmutable = p.off("nmethod", "_immutable_data");
    l->nmPcsEnd = p.sized("nmethod", "_scopes_data_offset");
    l->nmScopesData = p.sized("nmethod", "_scopes_data_offset");
    l->blobMutableData = p.sized("CodeBlob", "_mutable_data");
    l->blobRelocSize = p.sized("CodeBlob", "_relocation_size");
    l->nmDeopt = p.sized("nmethod", "_deopt_handler_offset");
    l->nmDeoptMh = p.sized("nmethod", "_deopt_mh_handler_offset");
  } else {  // JDK 17: CompiledMethod holds the method, scopes and deopt handlers as pointers
    l->nmMethod = p.off("CompiledMethod", "_method");
    l->nmPcsEnd = p.sized("nmethod", "_dependencies_offset");
    l->nmScopesData = p.sized("CompiledMethod", "_scopes_data_begin");
    l->nmMetadata = p.sized("nmethod", "_metadata_offset");
    l->nmDeopt = p.sized("CompiledMethod", "_deopt_handler_begin");
    l->nmDeoptMh = p.sized("CompiledMethod", "_deopt_mh_handler_begin");
  }
  // UNSIGNED5 with an excluded zero byte replaced Pack200's form of the same code in JDK 21,
  // the release after which CodeBlob switched to offsets (JDK 23): key the format on that.
  l->unsigned5Excludes0 = l->codeAsOffsets;
  l->pcDescSize = p.size("PcDesc");
  l->pcDescPcOffset = p.off("PcDesc", "_pc_offset");
  l->pcDescScopeOffset = p.off("PcDesc", "_scope_decode_offset");
}

void loadMethod(Picker& p, VmLayout* l) {
  l->methodConst = p.off("Method", "_constMethod");
  l->methodAccessFlags = p.sized("Method", "_access_flags");
  l->methodAccessFlags.size = 2;  // JVM_ACC_NATIVE is in the low 16 bits (int on 17, u2 on 25)
  if (p.has("Method", "_intrinsic_id")) l->methodIntrinsicId = p.sized("Method", "_intrinsic_id");
  l->constConstants = p.off("ConstMethod", "_constants");
  l->constIdnum = p.sized("ConstMethod", "_method_idnum");
  l->constCodeSize = p.sized("ConstMethod", "_code_size");
  l->constMethodSize = p.size("ConstMethod");  // the bytecodes follow the ConstMethod
  l->poolHolder = p.off("ConstantPool", "_pool_holder");
  l->klassJmethodIds = p.off("InstanceKlass", "_methods_jmethod_ids");
  l->klassMethods = p.off("InstanceKlass", "_methods");
  // Array<T>: an int length, then the elements at their alignment (8 for pointers).
  l->methodArrayLength = p.off("Array<Klass*>", "_length");
  l->methodArrayData = p.off("Array<Klass*>", "_data[0]");
}

void loadThreadsAndStubs(Picker& p, VmLayout* l) {
  auto* interp = p.addr<uintptr_t>("AbstractInterpreter", "_code");
  int32_t buffer = p.off("StubQueue", "_stub_buffer");
  int32_t limit = p.off("StubQueue", "_buffer_limit");
  if (interp != nullptr && *interp != 0 && buffer >= 0 && limit >= 0) {
    auto queue = reinterpret_cast<const char*>(*interp);
    l->interpBegin = *reinterpret_cast<const uintptr_t*>(queue + buffer);
    l->interpEnd = l->interpBegin + *reinterpret_cast<const int32_t*>(queue + limit);
  }
  l->callStubReturn = p.addr<uintptr_t>("StubRoutines", "_call_stub_return_address");
  l->entryFrameCallWrapper = p.constant("frame::entry_frame_call_wrapper_offset", -6, false);
  int32_t wrapperAnchor = p.off("JavaCallWrapper", "_anchor");
  int32_t anchor = p.off("JavaThread", "_anchor");
  l->anchorSp = p.off("JavaFrameAnchor", "_last_Java_sp");
  l->anchorPc = p.off("JavaFrameAnchor", "_last_Java_pc");
  l->anchorFp = p.off("JavaFrameAnchor", "_last_Java_fp");
  l->callWrapperAnchor = wrapperAnchor;
  l->threadAnchor = anchor;
  l->threadState = p.sized("JavaThread", "_thread_state");
  l->stackBase = p.off("JavaThread", "_stack_base");
  l->stackSize = p.off("JavaThread", "_stack_size");
  l->stateInJava = p.constant("_thread_in_Java", 8, true);
}

}  // namespace

bool VmLayoutLoader::load(VmLayout* out, std::string* missing) {
  const VmStructsTable& table = VmStructsTable::process();
  if (!table.loaded()) {
    *missing = table.loadError() + " (not a HotSpot JVM?)";
    return false;
  }
  Picker p(table);
  VmLayout l;
  loadCodeCache(p, &l);
  loadCodeBlob(p, &l);
  loadNmethod(p, &l);
  loadMethod(p, &l);
  loadThreadsAndStubs(p, &l);
  std::vector<std::string> gaps = p.missing();
  if (l.heapCount == 0 && gaps.empty()) gaps.push_back("CodeCache::_heaps (empty)");
  if (l.interpBegin == 0 && gaps.empty()) gaps.push_back("AbstractInterpreter::_code (empty)");
  if (!gaps.empty()) {
    missing->clear();
    for (size_t i = 0; i < gaps.size() && i < 4; i++) *missing += (i > 0 ? ", " : "") + gaps[i];
    if (gaps.size() > 4) *missing += " and " + std::to_string(gaps.size() - 4) + " more";
    return false;
  }
  *out = l;
  return true;
}

}  // namespace candor
