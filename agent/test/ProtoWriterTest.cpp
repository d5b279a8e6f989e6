// output/ProtoWriter, OtlpDictionary and OtlpWriter: the encodings of the protobuf encoding guide's
// own examples byte for byte, lengths of more than one byte, and an OTLP request read back with a
// small decoder written here (the itests read the agent's output with the official classes).
#include "output/ProtoWriter.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "output/OtlpDictionary.h"
#include "output/OtlpWriter.h"

namespace candor {
namespace {

std::string hex(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

TEST(ProtoWriter, EncodesTheGuidesExamples) {
  ProtoWriter w;
  w.varint(1, 150);  // "message Test1 { int32 a = 1; }" with a = 150
  EXPECT_EQ(hex(w.data()), "08 96 01");
  ProtoWriter s;
  s.bytes(2, "testing");
  EXPECT_EQ(hex(s.data()), "12 07 74 65 73 74 69 6e 67");
  ProtoWriter nested;  // Test3 { Test1 c = 3; } with c.a = 150
  size_t mark = nested.begin(3);
  nested.varint(1, 150);
  nested.end(mark);
  EXPECT_EQ(hex(nested.data()), "1a 03 08 96 01");
  ProtoWriter packed;  // repeated int32 f = 4 [3, 270, 86942], packed
  packed.packedVarints(4, {3, 270, 86942});
  EXPECT_EQ(hex(packed.data()), "22 06 03 8e 02 9e a7 05");
}

TEST(ProtoWriter, EncodesNegativesFixedAndLongLengths) {
  ProtoWriter w;
  w.int64(1, -1);  // int32/int64 -1: ten bytes, as every protobuf encoder writes it
  EXPECT_EQ(hex(w.data()), "08 ff ff ff ff ff ff ff ff ff 01");
  ProtoWriter f;
  f.fixed64(3, 0x0102030405060708ULL);
  EXPECT_EQ(hex(f.data()), "19 08 07 06 05 04 03 02 01");
  ProtoWriter big;
  big.varint(20, 1);  // a field number above 15: a two-byte tag
  size_t mark = big.begin(2);
  big.bytes(1, std::string(300, 'x'));  // 3 + 300 bytes inside: length 303 = af 02
  big.end(mark);
  ASSERT_EQ(big.data().size(), 3u + 1 + 2 + 303);
  EXPECT_EQ(hex(big.data().substr(0, 9)), "a0 01 01 12 af 02 0a ac 02");
  ProtoWriter empty;
  empty.packedVarints(1, {});
  empty.packedFixed64(2, {});
  EXPECT_TRUE(empty.data().empty());
  ProtoWriter fixed;
  fixed.packedFixed64(5, {1, 2});
  EXPECT_EQ(hex(fixed.data()), "2a 10 01 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00");
}

TEST(OtlpDictionary, KeepsEachItemOnceWithTheZeroItemFirst) {
  OtlpDictionary d;
  EXPECT_EQ(d.string(""), 0);
  int32_t a = d.string("a");
  EXPECT_EQ(a, 1);
  EXPECT_EQ(d.string("a"), a);
  int32_t f = d.function("m", "m");
  EXPECT_EQ(d.function("m", "m"), f);
  EXPECT_NE(d.function("m", "m()V"), f);
  int32_t attr = d.attribute("k", "v");
  EXPECT_EQ(d.attribute("k", "v"), attr);
  EXPECT_NE(d.attributeInt("k", 1), d.attributeBool("k", true));  // int 1 and true are not one value
  int32_t l = d.location(f, 12, {attr});
  EXPECT_EQ(d.location(f, 12, {attr}), l);
  EXPECT_NE(d.location(f, 13, {attr}), l);
  EXPECT_GT(l, 0);
  EXPECT_EQ(d.stack({}), 0);  // the empty stack is the zero item
  EXPECT_EQ(d.stack({l, l}), d.stack({l, l}));
}

// A minimal protobuf reader: the fields of one message, by number, as raw values or bytes.
struct Field {
  uint64_t value = 0;
  std::string bytes;
};
std::multimap<uint32_t, Field> decode(const std::string& m) {
  std::multimap<uint32_t, Field> out;
  size_t i = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; i < m.size(); shift += 7) {
      uint8_t b = static_cast<uint8_t>(m[i++]);
      v |= uint64_t(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    return v;
  };
  while (i < m.size()) {
    uint64_t tag = varint();
    Field f;
    switch (tag & 7) {
      case 0: f.value = varint(); break;
      case 1: for (int b = 0; b < 8; b++) f.value |= uint64_t(static_cast<uint8_t>(m[i++])) << (8 * b); break;
      case 2: {
        uint64_t n = varint();
        EXPECT_LE(i + n, m.size());
        f.bytes = m.substr(i, n);
        i += n;
        break;
      }
      default: ADD_FAILURE() << "wire type " << (tag & 7); return out;
    }
    out.emplace(static_cast<uint32_t>(tag >> 3), f);
  }
  return out;
}
std::vector<Field> all(const std::multimap<uint32_t, Field>& m, uint32_t field) {
  std::vector<Field> out;
  for (auto [it, end] = m.equal_range(field); it != end; ++it) out.push_back(it->second);
  return out;
}
std::vector<uint64_t> packed(const std::string& bytes) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < bytes.size();) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = static_cast<uint8_t>(bytes[i++]);
      v |= uint64_t(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    out.push_back(v);
  }
  return out;
}

TEST(OtlpWriter, SamplesByStackAndThreadWithFailuresAndTotals) {
  ProfileReport r;
  r.service = "svc";
  r.startUnixNs = 1'700'000'000'000'000'000ULL;
  r.durationNs = 2'000'000'000;
  r.kinds.emplace_back().name = "cpu";
  r.threads.push_back({42, "worker", "java", 0, 0, 0});
  ProfileSnapshot& s = r.snapshot;
  uint32_t main = s.childOf(0, s.intern("app.Main.main", kKindJava));
  uint32_t hot = s.childOf(main, s.intern("app.Hot.methodA:17", kKindJava));
  uint32_t kernel = s.childOf(hot, s.intern("do_syscall_64_[k]", kKindKernel));
  uint32_t gc = s.childOf(0, s.intern("[gc_active]", kKindFailure));
  s.addSamples(hot, 5, 42);
  s.addSamples(hot, 2, 42);  // same stack and thread (another state): one OTLP sample
  s.addSamples(kernel, 1, 42);
  s.addSamples(gc, 3, 42);
  s.addSamples(hot, 4);      // no thread: a sample of its own
  std::string bytes = encodeOtlp(r);

  auto request = decode(bytes);
  auto dictionary = decode(all(request, 2).at(0).bytes);
  std::vector<std::string> strings;
  for (const Field& f : all(dictionary, 5)) strings.push_back(f.bytes);
  ASSERT_FALSE(strings.empty());
  EXPECT_EQ(strings[0], "");
  auto string = [&](uint64_t i) { return i < strings.size() ? strings[i] : "?"; };
  std::vector<Field> functions = all(dictionary, 3), locations = all(dictionary, 2), stacks = all(dictionary, 7),
                     attributes = all(dictionary, 6);
  auto attribute = [&](uint64_t i) {  // "key=value"
    auto kv = decode(attributes.at(i).bytes);
    auto value = decode(all(kv, 2).at(0).bytes);
    std::string v = value.count(1) ? all(value, 1)[0].bytes
                                   : std::to_string(all(value, value.count(3) ? 3 : 2).at(0).value);
    return string(all(kv, 1).at(0).value) + "=" + v;
  };
  auto leafFirst = [&](uint64_t stack) {  // "name:line/attr" per location
    std::vector<std::string> out;
    auto st = decode(stacks.at(stack).bytes);
    for (uint64_t l : st.count(1) ? packed(all(st, 1)[0].bytes) : std::vector<uint64_t>{}) {
      auto loc = decode(locations.at(l).bytes);
      auto line = decode(all(loc, 3).at(0).bytes);
      auto fn = decode(functions.at(all(line, 1).at(0).value).bytes);
      std::string text = string(all(fn, 1).at(0).value);
      if (line.count(2)) text += ":" + std::to_string(all(line, 2)[0].value);
      out.push_back(text + "/" + attribute(packed(all(loc, 4).at(0).bytes).at(0)));
    }
    return out;
  };

  auto resourceProfiles = decode(all(request, 1).at(0).bytes);
  auto resource = decode(all(resourceProfiles, 1).at(0).bytes);
  auto serviceKv = decode(all(resource, 1).at(0).bytes);
  EXPECT_EQ(all(serviceKv, 1).at(0).bytes, "service.name");
  EXPECT_EQ(all(decode(all(serviceKv, 2).at(0).bytes), 1).at(0).bytes, "svc");
  auto scopeProfiles = decode(all(resourceProfiles, 2).at(0).bytes);
  EXPECT_EQ(all(decode(all(scopeProfiles, 1).at(0).bytes), 1).at(0).bytes, "candor");
  std::vector<Field> profiles = all(scopeProfiles, 2);
  ASSERT_EQ(profiles.size(), 1u);
  auto profile = decode(profiles[0].bytes);
  auto type = decode(all(profile, 1).at(0).bytes);
  EXPECT_EQ(string(all(type, 1).at(0).value), "samples");
  EXPECT_EQ(string(all(type, 2).at(0).value), "count");
  EXPECT_EQ(all(profile, 3).at(0).value, r.startUnixNs);
  EXPECT_EQ(all(profile, 4).at(0).value, r.durationNs);
  EXPECT_EQ(attribute(packed(all(profile, 11).at(0).bytes).at(0)), "candor.events=cpu");

  std::map<std::string, uint64_t> got;  // "stack | attributes" -> value
  uint64_t total = 0;
  for (const Field& f : all(profile, 2)) {
    auto sample = decode(f.bytes);
    std::string key;
    for (const std::string& l : leafFirst(sample.count(1) ? all(sample, 1)[0].value : 0)) key += l + " ";
    key += "|";
    if (sample.count(2)) {
      for (uint64_t a : packed(all(sample, 2)[0].bytes)) key += " " + attribute(a);
    }
    std::vector<uint64_t> values = packed(all(sample, 4).at(0).bytes);
    ASSERT_EQ(values.size(), 1u);
    EXPECT_EQ(got.count(key), 0u) << "one sample per stack and attributes: " << key;
    got[key] = values[0];
    total += values[0];
  }
  const std::string hotStack = "app.Hot.methodA:17/profile.frame.type=jvm app.Main.main/profile.frame.type=jvm |";
  EXPECT_EQ(got[hotStack + " thread.name=worker candor.tid=42"], 7u);
  EXPECT_EQ(got[hotStack], 4u);
  EXPECT_EQ(got["do_syscall_64/profile.frame.type=kernel app.Hot.methodA:17/profile.frame.type=jvm "
                "app.Main.main/profile.frame.type=jvm | thread.name=worker candor.tid=42"], 1u);
  EXPECT_EQ(got["[gc_active]/candor.frame.kind=pseudo | candor.failure=gc_active thread.name=worker candor.tid=42"],
            3u);
  EXPECT_EQ(got.size(), 4u);
  EXPECT_EQ(total, s.total());
}

TEST(OtlpWriter, ValueProfilesBesideTheMainOneInTheirUnits) {
  ProfileReport r;
  r.kinds.emplace_back().name = "cpu";
  r.snapshot.addStack({r.snapshot.intern("a.B.c", kKindJava)}, 3);
  r.alloc.enabled = true;
  r.alloc.kind = "alloc";
  r.alloc.unit = "bytes";
  ProfileSnapshot& a = r.alloc.snapshot;
  a.addStack({a.intern("a.B.c", kKindJava), a.intern("byte[]", kKindObjectClass)}, 4096);
  auto scope = decode(all(decode(all(decode(encodeOtlp(r)), 1).at(0).bytes), 2).at(0).bytes);
  std::vector<Field> profiles = all(scope, 2);
  ASSERT_EQ(profiles.size(), 2u);
  auto request = decode(encodeOtlp(r));
  std::vector<std::string> strings;
  for (const Field& f : all(decode(all(request, 2).at(0).bytes), 5)) strings.push_back(f.bytes);
  auto type = decode(all(decode(profiles[1].bytes), 1).at(0).bytes);
  EXPECT_EQ(strings.at(all(type, 1).at(0).value), "alloc_space");
  EXPECT_EQ(strings.at(all(type, 2).at(0).value), "bytes");
  auto sample = decode(all(decode(profiles[1].bytes), 2).at(0).bytes);
  EXPECT_EQ(packed(all(sample, 4).at(0).bytes), std::vector<uint64_t>{4096});
}

}  // namespace
}  // namespace candor
