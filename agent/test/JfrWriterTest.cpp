// The JFR writer: encodings, chunk header layout, and whole chunks read back by a small
// metadata-driven parser written here from the format description (not from the writer's code).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "output/jfr/JfrBuffer.h"
#include "output/jfr/JfrChunkWriter.h"
#include "output/jfr/JfrConstantPool.h"
#include "output/jfr/JfrMetadata.h"
#include "output/jfr/JfrRecorder.h"
#include "output/jfr/JfrTypes.h"

using namespace candor;

namespace {

std::vector<uint8_t> bytes(const jfr::Buffer& b) { return {b.data(), b.data() + b.size()}; }

std::vector<uint8_t> varLong(uint64_t v) {
  jfr::Buffer b;
  b.putVarLong(v);
  return bytes(b);
}

// ---- a minimal reader -------------------------------------------------------------------------

struct Reader {
  const std::vector<uint8_t>& d;
  size_t pos;
  uint8_t u8() {
    if (pos >= d.size()) throw std::runtime_error("read past the end at " + std::to_string(pos));
    return d[pos++];
  }
  uint64_t be(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | u8();
    return v;
  }
  uint64_t var() {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
      uint8_t b = u8();
      v |= uint64_t(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) return v;
    }
    return v | uint64_t(u8()) << 56;
  }
  std::string str(bool* isNull = nullptr) {
    uint8_t enc = u8();
    if (isNull) *isNull = enc == 0;
    if (enc == 0 || enc == 1) return "";
    if (enc != 3) throw std::runtime_error("string encoding " + std::to_string(enc));
    size_t n = var();
    std::string s(d.begin() + pos, d.begin() + pos + n);
    pos += n;
    return s;
  }
};

struct Field {
  std::string name;
  uint64_t type;
  bool cpool = false;
  bool array = false;
};
struct Type {
  std::string name;
  std::string superType;
  std::vector<Field> fields;
};

struct Node {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<Node> children;
};

Node readNode(Reader& r, const std::vector<std::string>& strings) {
  Node n;
  n.name = strings.at(r.var());
  for (uint64_t i = 0, c = r.var(); i < c; i++) {
    std::string k = strings.at(r.var());
    n.attrs[k] = strings.at(r.var());
  }
  for (uint64_t i = 0, c = r.var(); i < c; i++) n.children.push_back(readNode(r, strings));
  return n;
}

// A value as the parser sees it: a number, a string, a pool id or a list of fields.
struct Value {
  uint64_t num = 0;
  std::string text;
  bool isNull = false;
  std::vector<std::pair<std::string, Value>> fields;  // struct or array elements
  const Value& operator[](const std::string& f) const {
    for (const auto& [k, v] : fields)
      if (k == f) return v;
    throw std::runtime_error("no field " + f);
  }
};

struct Chunk {
  uint64_t size = 0, cpOffset = 0, metaOffset = 0, startNanos = 0, durationNanos = 0, startTicks = 0, tps = 0;
  uint8_t flags = 0;
  std::map<uint64_t, Type> types;
  std::map<std::string, uint64_t> ids;
  std::map<uint64_t, std::map<uint64_t, Value>> pools;  // type → id → value
  std::vector<std::pair<std::string, Value>> events;    // type name, value
  std::string region;
};

Value readValue(Reader& r, const Chunk& c, uint64_t typeId);

Value readField(Reader& r, const Chunk& c, const Field& f) {
  auto one = [&]() {
    if (f.cpool) {
      Value v;
      v.num = r.var();
      return v;
    }
    return readValue(r, c, f.type);
  };
  if (!f.array) return one();
  Value arr;
  for (uint64_t i = 0, n = r.var(); i < n; i++) arr.fields.emplace_back(std::to_string(i), one());
  return arr;
}

Value readValue(Reader& r, const Chunk& c, uint64_t typeId) {
  const Type& t = c.types.at(typeId);
  Value v;
  if (t.name == "boolean" || t.name == "byte") v.num = r.u8();
  else if (t.name == "int" || t.name == "long" || t.name == "short" || t.name == "char") v.num = r.var();
  else if (t.name == "float") v.num = r.be(4);
  else if (t.name == "double") v.num = r.be(8);
  else if (t.name == "java.lang.String") v.text = r.str(&v.isNull);
  else
    for (const Field& f : t.fields) v.fields.emplace_back(f.name, readField(r, c, f));
  return v;
}

Chunk parseChunk(const std::vector<uint8_t>& d, size_t start = 0) {
  Chunk c;
  Reader r{d, start};
  if (r.be(4) != 0x464c5200) throw std::runtime_error("bad magic");
  EXPECT_EQ(2u, r.be(2));  // major
  EXPECT_EQ(0u, r.be(2));  // minor
  c.size = r.be(8);
  c.cpOffset = r.be(8);
  c.metaOffset = r.be(8);
  c.startNanos = r.be(8);
  c.durationNanos = r.be(8);
  c.startTicks = r.be(8);
  c.tps = r.be(8);
  EXPECT_EQ(0u, r.u8());  // file state: finished
  r.u8();
  r.u8();
  c.flags = r.u8();
  EXPECT_EQ(jfr::kChunkHeaderSize, r.pos - start);
  EXPECT_LE(start + c.size, d.size());

  // metadata
  r.pos = start + c.metaOffset;
  uint64_t size = r.var();
  EXPECT_EQ(0u, r.var());  // type id
  r.var();                 // start
  r.var();                 // duration
  r.var();                 // metadata id
  std::vector<std::string> strings;
  for (uint64_t i = 0, n = r.var(); i < n; i++) strings.push_back(r.str());
  Node root = readNode(r, strings);
  EXPECT_EQ(start + c.metaOffset + size, r.pos) << "metadata event size";
  EXPECT_EQ("root", root.name);
  for (const Node& n : root.children) {
    if (n.name == "region") c.region = n.attrs.at("locale");
    if (n.name != "metadata") continue;
    for (const Node& cls : n.children) {
      EXPECT_EQ("class", cls.name);
      Type t;
      t.name = cls.attrs.at("name");
      if (cls.attrs.count("superType")) t.superType = cls.attrs.at("superType");
      for (const Node& f : cls.children) {
        if (f.name != "field") continue;
        t.fields.push_back({f.attrs.at("name"), std::stoull(f.attrs.at("class")), f.attrs.count("constantPool") > 0,
                            f.attrs.count("dimension") > 0});
      }
      uint64_t id = std::stoull(cls.attrs.at("id"));
      c.ids[t.name] = id;
      c.types[id] = t;
    }
  }
  // every field's type is declared
  for (const auto& [id, t] : c.types)
    for (const Field& f : t.fields) EXPECT_TRUE(c.types.count(f.type)) << t.name << "." << f.name;

  // constant pools
  r.pos = start + c.cpOffset;
  size = r.var();
  EXPECT_EQ(1u, r.var());
  r.var();                 // start
  r.var();                 // duration
  EXPECT_EQ(0u, r.var());  // delta: the only checkpoint
  r.u8();                  // type
  for (uint64_t i = 0, pools = r.var(); i < pools; i++) {
    uint64_t type = r.var();
    uint64_t count = r.var();
    EXPECT_GT(count, 0u) << "empty pool " << c.types.at(type).name;
    for (uint64_t j = 0; j < count; j++) {
      uint64_t id = r.var();
      c.pools[type][id] = readValue(r, c, type);
    }
  }
  EXPECT_EQ(start + c.cpOffset + size, r.pos) << "checkpoint event size";
  EXPECT_EQ(start + c.size, r.pos) << "the checkpoint ends the chunk";

  // events
  r.pos = start + jfr::kChunkHeaderSize;
  while (r.pos < start + c.size) {
    size_t at = r.pos;
    uint64_t n = r.var();
    uint64_t type = r.var();
    if (type > 1) {
      const Type& t = c.types.at(type);
      EXPECT_EQ("jdk.jfr.Event", t.superType) << t.name;
      EXPECT_EQ("startTime", t.fields.at(0).name);
      c.events.emplace_back(t.name, readValue(r, c, type));
      EXPECT_EQ(at + n, r.pos) << "size of event " << t.name << " at " << at;
    }
    r.pos = at + n;
  }
  EXPECT_EQ(start + c.size, r.pos);
  return c;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tempDir() {
  char tmpl[] = "/tmp/candor-jfr-test-XXXXXX";
  return mkdtemp(tmpl);
}

size_t count(const Chunk& c, const std::string& type) {
  size_t n = 0;
  for (const auto& e : c.events) n += e.first == type;
  return n;
}

}  // namespace

TEST(JfrBuffer, CompressedIntegers) {
  EXPECT_EQ(std::vector<uint8_t>({0x00}), varLong(0));
  EXPECT_EQ(std::vector<uint8_t>({0x7f}), varLong(127));
  EXPECT_EQ(std::vector<uint8_t>({0x80, 0x01}), varLong(128));
  EXPECT_EQ(std::vector<uint8_t>({0xac, 0x02}), varLong(300));
  EXPECT_EQ(std::vector<uint8_t>(9, 0xff), varLong(UINT64_MAX));  // 8 x 7 bits, then 8 bits whole
  EXPECT_EQ(9u, varLong(1ULL << 56).size());
  EXPECT_EQ(8u, varLong((1ULL << 56) - 1).size());
  jfr::Buffer b;
  b.putVarInt(-1);  // an int is its 32-bit pattern: 5 bytes
  EXPECT_EQ(std::vector<uint8_t>({0xff, 0xff, 0xff, 0xff, 0x0f}), bytes(b));
  for (uint64_t v : std::vector<uint64_t>{0, 1, 127, 128, 16383, 16384, 1ULL << 35, 1ULL << 62, UINT64_MAX}) {
    std::vector<uint8_t> e = varLong(v);
    Reader r{e, 0};
    EXPECT_EQ(v, r.var());
    EXPECT_EQ(e.size(), jfr::Buffer::varLongSize(v));
  }
}

TEST(JfrBuffer, StringsAndBigEndian) {
  jfr::Buffer b;
  b.putString("");
  b.putNullString();
  b.putString("ab");
  b.putBE16(0x0102);
  b.putBE32(0x03040506);
  b.putBE64(0x0708090a0b0c0d0eULL);
  EXPECT_EQ(std::vector<uint8_t>({1, 0, 3, 2, 'a', 'b', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}), bytes(b));
}

TEST(JfrBuffer, EventSizeCountsItself) {
  for (size_t n : {1u, 125u, 126u, 127u, 128u, 16381u, 16382u, 16383u, 16384u}) {
    jfr::Buffer payload, out;
    for (size_t i = 0; i < n; i++) payload.put8(7);
    out.putEvent(payload);
    std::vector<uint8_t> d = bytes(out);
    Reader r{d, 0};
    uint64_t size = r.var();
    EXPECT_EQ(d.size(), size) << "payload " << n;
    EXPECT_EQ(n, d.size() - r.pos);
  }
}

TEST(JfrChunk, HeaderLayout) {
  jfr::ChunkHeader h;
  h.chunkSize = 0x1122;
  h.checkpointOffset = 0x33;
  h.metadataOffset = 68;
  h.startNanos = 0x0102030405060708ULL;
  h.durationNanos = 9;
  h.startTicks = 10;
  h.ticksPerSecond = 1'000'000'000;
  h.finalChunk = true;
  jfr::Buffer b;
  jfr::writeChunkHeader(b, h);
  std::vector<uint8_t> d = bytes(b);
  ASSERT_EQ(68u, d.size());
  EXPECT_EQ(0, memcmp(d.data(), "FLR\0\0\x02\0\0", 8));  // magic, major 2, minor 0
  Reader r{d, 8};
  EXPECT_EQ(0x1122u, r.be(8));
  EXPECT_EQ(0x33u, r.be(8));
  EXPECT_EQ(68u, r.be(8));
  EXPECT_EQ(0x0102030405060708ULL, r.be(8));
  EXPECT_EQ(9u, r.be(8));
  EXPECT_EQ(10u, r.be(8));
  EXPECT_EQ(1'000'000'000u, r.be(8));
  EXPECT_EQ(0u, d[64]);                                                     // file state: finished
  EXPECT_EQ(jfr::kFlagCompressedInts | jfr::kFlagFinalChunk, int(d[67]));  // compressed ints, final chunk
}

TEST(JfrChunk, MetadataDeclaresTheJdkTypes) {
  jfr::Buffer meta;
  jfr::writeMetadataEvent(meta, 5);
  jfr::Buffer events, cp;
  jfr::ConstantPools pools;
  jfr::PoolSources src;
  TraceStore none;
  src.store = &none;
  pools.writeCheckpoint(cp, 6, src);
  std::string dir = tempDir();
  std::string path = dir + "/m.jfr";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(nullptr, f);
  jfr::ChunkHeader h;
  h.startTicks = 5;
  h.ticksPerSecond = jfr::kTicksPerSecond;
  std::string why;
  ASSERT_GT(jfr::writeChunk(fileno(f), h, meta, events, cp, &why), 0u) << why;
  fclose(f);
  Chunk c = parseChunk(readFile(path));
  EXPECT_EQ(jfr::kFlagCompressedInts, c.flags);
  EXPECT_EQ("en_US", c.region);
  auto fieldsOf = [&](const std::string& type) {
    std::vector<std::string> names;
    for (const Field& fl : c.types.at(c.ids.at(type)).fields) names.push_back(fl.name);
    return names;
  };
  EXPECT_EQ(std::vector<std::string>({"startTime", "sampledThread", "stackTrace", "state", "labels"}),
            fieldsOf("jdk.ExecutionSample"));
  EXPECT_EQ(std::vector<std::string>({"method", "lineNumber", "bytecodeIndex", "type"}),
            fieldsOf("jdk.types.StackFrame"));
  EXPECT_EQ(std::vector<std::string>({"type", "name", "descriptor", "modifiers", "hidden"}),
            fieldsOf("jdk.types.Method"));
  EXPECT_EQ(std::vector<std::string>({"classLoader", "name", "package", "modifiers", "hidden"}),
            fieldsOf("java.lang.Class"));
  EXPECT_EQ(std::vector<std::string>({"osName", "osThreadId", "javaName", "javaThreadId", "group"}),
            fieldsOf("java.lang.Thread"));
  EXPECT_EQ(std::vector<std::string>({"startTime", "sampledThread", "bucket", "kind", "labels"}),
            fieldsOf("candor.FailedTick"));
  for (const char* t : {"candor.WallClockSample", "candor.SafepointSample", "candor.HandshakeSample"})
    EXPECT_EQ(fieldsOf("jdk.ExecutionSample"), fieldsOf(t)) << t;
  // frame types and thread states are always there
  EXPECT_EQ("JIT compiled", c.pools.at(c.ids.at("jdk.types.FrameType")).at(jfr::kFrameJitCompiled)["description"].text);
  const auto& states = c.pools.at(c.ids.at("jdk.types.ThreadState"));
  EXPECT_EQ("STATE_RUNNABLE", states.at(jfr::kStateRunnable)["name"].text);
  EXPECT_EQ("STATE_PARKED", states.at(jfr::threadStateKey(ThreadState::kParked))["name"].text);
  EXPECT_EQ(size_t(ThreadState::kCount), states.size());
  unlink(path.c_str());
  rmdir(dir.c_str());
}

TEST(JfrChunk, PoolsHoldWhatTheEventsReference) {
  // Two fake methods: a.b.Hot.run (Java) and a.b.Hot.nat (native), and a lambda-form class.
  std::map<jmethodID, MethodInfo> infos;
  auto mid = [](uintptr_t v) { return reinterpret_cast<jmethodID>(v); };
  infos[mid(1)] = {"a.b.Hot", "run", "(I)I", {{0, 10}, {5, 11}}, 9, 17, true};
  infos[mid(2)] = {"a.b.Hot", "nat", "()V", {}, 0x109, 17, true};
  infos[mid(3)] = {"java.lang.invoke.LambdaForm$MH.0x0000000800c01000", "invoke", "()V", {}, 8, 16, true};
  infos[mid(4)] = {"Top", "main", "([Ljava/lang/String;)V", {}, 9, 1, true};
  TraceStore store;
  ASGCT_CallFrame t1[] = {{6, mid(1)}, {0, mid(4)}};
  ASGCT_CallFrame t2[] = {{kNativeMethodBci, mid(2)}, {0, mid(3)}, {1, mid(1)}, {0, mid(4)}};
  uint32_t id1 = store.add(t1, 2, 7);
  uint32_t id2 = store.add(t2, 4, 8);
  uint32_t id3 = store.add(t1, 2, 9, SampleKind::kCpu, ThreadState::kUnknown, 1, true);  // cut: [truncated] root

  jfr::ConstantPools pools;
  jfr::PoolSources src;
  src.store = &store;
  MethodResolver resolver(nullptr);
  for (const auto& [m, info] : infos) resolver.rememberForTest(m, info);
  FrameNamer names(resolver);
  src.names = &names;
  src.thread = [](int tid) { return jfr::ThreadName{"w" + std::to_string(tid), tid != 8}; };
  src.maxDepth = 4;

  auto chunkOf = [&](std::vector<uint32_t> traces, std::vector<int> threads) {
    for (uint32_t t : traces) pools.useTrace(t);
    for (int t : threads) pools.useThread(t);
    jfr::Buffer meta, events, cp;
    jfr::writeMetadataEvent(meta, 100);
    pools.writeCheckpoint(cp, 100, src);
    std::string dir = tempDir();
    std::string path = dir + "/p.jfr";
    FILE* f = fopen(path.c_str(), "w");
    jfr::ChunkHeader h;
    std::string why;
    EXPECT_GT(jfr::writeChunk(fileno(f), h, meta, events, cp, &why), 0u) << why;
    fclose(f);
    Chunk c = parseChunk(readFile(path));
    unlink(path.c_str());
    rmdir(dir.c_str());
    return c;
  };

  Chunk c = chunkOf({id1, id2}, {7, 8});
  const auto& traces = c.pools.at(c.ids.at("jdk.types.StackTrace"));
  const auto& methods = c.pools.at(c.ids.at("jdk.types.Method"));
  const auto& classes = c.pools.at(c.ids.at("java.lang.Class"));
  const auto& symbols = c.pools.at(c.ids.at("jdk.types.Symbol"));
  const auto& packages = c.pools.at(c.ids.at("jdk.types.Package"));
  const auto& threads = c.pools.at(c.ids.at("java.lang.Thread"));
  ASSERT_EQ(2u, traces.size());
  EXPECT_EQ(4u, methods.size());
  EXPECT_EQ(3u, classes.size());  // a/b/Hot, the lambda form, Top
  EXPECT_EQ(2u, packages.size());  // a/b and java/lang/invoke; Top has none
  auto sym = [&](uint64_t id) { return symbols.at(id)["string"].text; };
  auto methodName = [&](uint64_t id) {
    const Value& m = methods.at(id);
    return sym(classes.at(m["type"].num)["name"].num) + "." + sym(m["name"].num);
  };

  const Value& tr1 = traces.at(jfr::ConstantPools::traceKey(id1));
  EXPECT_EQ(0u, tr1["truncated"].num);
  ASSERT_EQ(2u, tr1["frames"].fields.size());
  const Value& leaf = tr1["frames"].fields[0].second;  // leaf first
  EXPECT_EQ("a/b/Hot.run", methodName(leaf["method"].num));
  EXPECT_EQ(11u, leaf["lineNumber"].num);
  EXPECT_EQ(6u, leaf["bytecodeIndex"].num);
  EXPECT_EQ(jfr::kFrameJitCompiled, leaf["type"].num);

  const Value& tr2 = traces.at(jfr::ConstantPools::traceKey(id2));
  EXPECT_EQ(1u, tr2["truncated"].num);  // as deep as the ring's depth: may have been cut
  const Value& nat = tr2["frames"].fields[0].second;
  EXPECT_EQ("a/b/Hot.nat", methodName(nat["method"].num));
  EXPECT_EQ(jfr::kFrameNative, nat["type"].num);
  EXPECT_EQ(uint32_t(-1), uint32_t(nat["lineNumber"].num));
  const Value& lambda = methods.at(tr2["frames"].fields[1].second["method"].num);
  EXPECT_EQ(1u, lambda["hidden"].num);
  EXPECT_EQ(1u, classes.at(lambda["type"].num)["hidden"].num);
  EXPECT_EQ("java/lang/invoke/LambdaForm$MH/0x0000000800c01000", sym(classes.at(lambda["type"].num)["name"].num));
  const Value& run = methods.at(leaf["method"].num);
  EXPECT_EQ("(I)I", sym(run["descriptor"].num));
  EXPECT_EQ(9u, run["modifiers"].num);
  EXPECT_EQ(17u, classes.at(run["type"].num)["modifiers"].num);
  EXPECT_EQ("a/b", sym(packages.at(classes.at(run["type"].num)["package"].num)["name"].num));
  EXPECT_EQ(0u, classes.at(methods.at(tr1["frames"].fields[1].second["method"].num)["type"].num)["package"].num);

  EXPECT_EQ("w7", threads.at(7)["osName"].text);
  EXPECT_EQ("w7", threads.at(7)["javaName"].text);
  EXPECT_EQ(7u, threads.at(7)["javaThreadId"].num);
  EXPECT_TRUE(threads.at(8)["javaName"].isNull);  // not a Java thread

  // Traces share their callers in the store: each still lists all its frames, callers included.
  ASSERT_EQ(4u, tr2["frames"].fields.size());
  EXPECT_EQ("Top.main", methodName(tr2["frames"].fields[3].second["method"].num));
  EXPECT_EQ(tr1["frames"].fields[1].second["method"].num, tr2["frames"].fields[3].second["method"].num);

  // The next chunk holds only what it uses, under the same ids; a stack cut at the ring's depth is
  // flagged truncated and its marker is no frame.
  Chunk c1 = chunkOf({id1, id3}, {7, 9});
  const auto& cutTraces = c1.pools.at(c1.ids.at("jdk.types.StackTrace"));
  const Value& tr3 = cutTraces.at(jfr::ConstantPools::traceKey(id3));
  EXPECT_EQ(1u, tr3["truncated"].num);
  ASSERT_EQ(2u, tr3["frames"].fields.size());
  EXPECT_EQ(leaf["method"].num, tr3["frames"].fields[0].second["method"].num);
  EXPECT_EQ(0u, cutTraces.at(jfr::ConstantPools::traceKey(id1))["truncated"].num);
  Chunk c2 = chunkOf({id1}, {7});
  EXPECT_EQ(1u, c2.pools.at(c2.ids.at("jdk.types.StackTrace")).size());
  EXPECT_EQ(2u, c2.pools.at(c2.ids.at("jdk.types.Method")).size());
  EXPECT_EQ(1u, c2.pools.at(c2.ids.at("java.lang.Thread")).size());
  EXPECT_EQ(methods.at(leaf["method"].num)["name"].num,
            c2.pools.at(c2.ids.at("jdk.types.Method")).at(leaf["method"].num)["name"].num);
  // A chunk without samples has no empty pools.
  Chunk c3 = chunkOf({}, {});
  EXPECT_EQ(0u, c3.pools.count(c3.ids.at("jdk.types.StackTrace")));
  EXPECT_EQ(0u, c3.pools.count(c3.ids.at("java.lang.Thread")));
}

TEST(JfrRecorder, ChunksAccountForEveryTick) {
  std::string dir = tempDir();
  std::string path = dir + "/r.jfr";
  Options options;
  options.intervalNs = 1'000'000;
  options.files = {path};
  TraceStore store;
  MethodResolver resolver(nullptr);  // only null methods below: resolved without JVMTI
  FrameNamer names(resolver);
  ThreadRegistry threads;
  JfrRecorder rec(options, path, store, names, threads);
  std::string why;
  ASSERT_TRUE(rec.open(&why)) << why;

  SampleSlot slot{};  // the recorder reads tid, numFrames and timeNs; frames go to the store
  slot.tid = 42;
  ASGCT_CallFrame frames[3] = {{0, nullptr}, {1, nullptr}, {2, nullptr}};
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = uint64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  auto sample = [&](int n, uint64_t t) {
    slot.numFrames = n;
    slot.timeNs = t;
    uint32_t id = n > 0 ? store.add(frames, n, slot.tid) : DrainListener::kNoTrace;
    rec.onDrained(slot, id, n > 0 ? n : slot.numFrames);
  };
  for (int i = 0; i < 10; i++) sample(3, now + i);
  sample(-2, now + 10);  // gc_active
  sample(0, now + 11);   // no_java_frame
  ProfileReport report;
  report.ticks = 13;
  report.recorded = 10;
  report.dropped = 1;
  report.failures = {{"gc_active", 1}, {"no_java_frame", 1}};
  rec.flush(report, false);  // a dump: one chunk, recording goes on
  for (int i = 0; i < 5; i++) sample(2, now + 100 + i);
  report.ticks = 18;
  report.recorded = 15;
  rec.flush(report, true);
  EXPECT_EQ(2u, rec.chunksWritten());

  std::vector<uint8_t> d = readFile(path);
  Chunk c1 = parseChunk(d, 0);
  Chunk c2 = parseChunk(d, c1.size);
  EXPECT_EQ(d.size(), c1.size + c2.size);
  EXPECT_EQ(std::max(c1.size, c2.size), rec.largestChunkBytes());
  EXPECT_EQ(0, c1.flags & jfr::kFlagFinalChunk);
  EXPECT_EQ(jfr::kFlagFinalChunk, c2.flags & jfr::kFlagFinalChunk);
  EXPECT_EQ(10u, count(c1, "jdk.ExecutionSample"));
  EXPECT_EQ(2u, count(c1, "candor.FailedTick"));
  EXPECT_EQ(5u, count(c2, "jdk.ExecutionSample"));
  EXPECT_EQ(1u, count(c1, "candor.ProfilerSettings"));
  EXPECT_EQ(1u, count(c2, "candor.ProfilerSettings"));
  std::vector<std::string> buckets;
  for (const auto& [type, v] : c1.events) {
    if (type == "candor.FailedTick") buckets.push_back(v["bucket"].text);
    if (type == "candor.ProfilerSettings") {
      EXPECT_EQ("cpu", v["engine"].text);
      EXPECT_EQ(1'000'000u, v["interval"].num);
      EXPECT_NE(std::string::npos, v["options"].text.find("interval=1000000ns"));
    }
    if (type == "jdk.ExecutionSample") {
      EXPECT_EQ(42u, v["sampledThread"].num);
      EXPECT_TRUE(c1.pools.at(c1.ids.at("jdk.types.StackTrace")).count(v["stackTrace"].num));
      EXPECT_GE(v["startTime"].num, c1.startTicks);
      EXPECT_LE(v["startTime"].num, c1.startTicks + c1.durationNanos);
    }
  }
  EXPECT_EQ(std::vector<std::string>({"gc_active", "no_java_frame"}), buckets);
  EXPECT_EQ("[tid=42]", c1.pools.at(c1.ids.at("java.lang.Thread")).at(42)["osName"].text);
  // the counters of the last chunk close the identity: samples + failed + dropped = ticks
  const Value* counters = nullptr;
  for (const auto& [type, v] : c2.events)
    if (type == "candor.ProfilerCounters") counters = &v;
  ASSERT_NE(nullptr, counters);
  EXPECT_EQ(18u, (*counters)["ticks"].num);
  EXPECT_EQ(1u, (*counters)["dropped"].num);
  EXPECT_EQ((*counters)["ticks"].num, 15u + 2u + (*counters)["dropped"].num);
  EXPECT_EQ(c1.tps, jfr::kTicksPerSecond);
  // chunk start in epoch nanoseconds: within a day of now
  EXPECT_NEAR(double(c1.startNanos), double(time(nullptr)) * 1e9, 86400e9);
  EXPECT_LE(c1.startTicks + c1.durationNanos, c2.startTicks + c2.durationNanos);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

TEST(JfrRecorder, WallSamplesKeepTheirStateAndRepeats) {
  std::string dir = tempDir();
  std::string path = dir + "/w.jfr";
  Options options;
  options.cpuEngine = false;
  options.sampler = SamplerMode::kWall;
  options.samplerIntervalNs = 20'000'000;
  TraceStore store;
  MethodResolver resolver(nullptr);
  FrameNamer names(resolver);
  ThreadRegistry threads;
  JfrRecorder rec(options, path, store, names, threads);
  std::string why;
  ASSERT_TRUE(rec.open(&why)) << why;
  SampleSlot slot{};
  slot.kind = static_cast<uint8_t>(SampleKind::kWall);
  ASGCT_CallFrame frames[1] = {{0, nullptr}};
  // `outcome`: what SampleAccounting resolved the tick to (a repeat: the thread's last outcome)
  auto tick = [&](int tid, int32_t code, ThreadState state, int32_t outcome) {
    slot.tid = tid;
    slot.numFrames = code;
    slot.state = static_cast<uint8_t>(state);
    slot.timeNs = 1000 + tid;
    rec.onDrained(slot, outcome > 0 ? store.add(frames, 1, tid) : DrainListener::kNoTrace, outcome);
  };
  tick(1, 1, ThreadState::kParked, 1);
  tick(1, kRepeatLastCode, ThreadState::kParked, 1);  // repeats a stack: the accounting passes its trace
  tick(2, -5, ThreadState::kRunning, -5);              // unknown_java
  tick(2, kRepeatLastCode, ThreadState::kRunning, -5);  // repeats unknown_java
  tick(3, kRepeatLastCode, ThreadState::kSleeping, kUnknownStateCode);  // nothing to repeat: unknown_state
  ProfileReport report;
  rec.flush(report, true);
  Chunk c = parseChunk(readFile(path));
  EXPECT_EQ(2u, count(c, "candor.WallClockSample"));
  EXPECT_EQ(0u, count(c, "jdk.ExecutionSample"));
  std::vector<std::string> failed;
  for (const auto& [type, v] : c.events) {
    if (type == "candor.WallClockSample") {
      EXPECT_EQ("STATE_PARKED", c.pools.at(c.ids.at("jdk.types.ThreadState")).at(v["state"].num)["name"].text);
    }
    if (type == "candor.FailedTick") failed.push_back(v["bucket"].text + "/" + v["kind"].text);
    if (type == "candor.ProfilerSettings") {
      EXPECT_EQ("wall", v["engine"].text);
      EXPECT_EQ(20'000'000u, v["interval"].num);
      EXPECT_EQ(20'000'000u, v["samplerInterval"].num);
    }
  }
  EXPECT_EQ(std::vector<std::string>({"unknown_java/wall", "unknown_java/wall", "unknown_state/wall"}), failed);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

TEST(JfrRecorder, RotatedNames) {
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ("/x/p-20240102-030405.jfr", JfrRecorder::rotatedName("/x/p.jfr", 1704164645));
  EXPECT_EQ("p-19700101-000000.jfr", JfrRecorder::rotatedName("p.jfr", 0));
}

TEST(JfrNames, InternalAndHidden) {
  EXPECT_EQ("java/util/HashMap", jfr::internalClassName("java.util.HashMap"));
  EXPECT_TRUE(jfr::isHiddenClassName("a/B$$Lambda/0x0000000800c02a00"));
  EXPECT_TRUE(jfr::isHiddenClassName("a/B$$Lambda+0x0000000800c02a00"));
  EXPECT_FALSE(jfr::isHiddenClassName("a/B$$Lambda$14"));
  EXPECT_FALSE(jfr::isHiddenClassName("a/Ox0"));
}
