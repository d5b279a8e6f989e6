#include "output/jfr/JfrMetadata.h"

#include <unordered_map>

#include "output/jfr/JfrTypes.h"

namespace candor::jfr {

namespace {

enum FieldFlags : unsigned {
  kCpool = 1,          // the value is an id into the type's constant pool
  kArray = 2,          // dimension 1
  kTicks = 4,          // @Timestamp("TICKS")
  kNanos = 8,          // @Timespan("NANOSECONDS")
};

Element annotation(TypeId type, const char* value = nullptr) {
  Element e("annotation");
  e.attr("class", std::to_string(type));
  if (value != nullptr) e.attr("value", value);
  return e;
}

Element type(const char* name, TypeId id, const char* label = nullptr, const char* superType = nullptr,
             bool simple = false) {
  Element e("class");
  e.attr("name", name).attr("id", std::to_string(id));
  if (superType != nullptr) e.attr("superType", superType);
  if (simple) e.attr("simpleType", "true");
  if (label != nullptr) e.add(annotation(kLabel, label));
  return e;
}

Element event(const char* name, TypeId id, const char* label, const char* description,
              std::vector<const char*> category) {
  Element e = type(name, id, label, "jdk.jfr.Event");
  if (description != nullptr) e.add(annotation(kDescription, description));
  Element c = annotation(kCategory);
  for (size_t i = 0; i < category.size(); i++) c.attr("value-" + std::to_string(i), category[i]);
  e.add(std::move(c));
  return e;
}

Element field(const char* name, TypeId type, const char* label = nullptr, unsigned flags = 0,
              const char* description = nullptr) {
  Element e("field");
  e.attr("name", name).attr("class", std::to_string(type));
  if (flags & kCpool) e.attr("constantPool", "true");
  if (flags & kArray) e.attr("dimension", "1");
  if (label != nullptr) e.add(annotation(kLabel, label));
  if (description != nullptr) e.add(annotation(kDescription, description));
  if (flags & kTicks) e.add(annotation(kTimestamp, "TICKS"));
  if (flags & kNanos) e.add(annotation(kTimespan, "NANOSECONDS"));
  return e;
}

Element buildRoot() {
  Element metadata("metadata");
  metadata.add(type("boolean", kBoolean))
      .add(type("char", kChar))
      .add(type("float", kFloat))
      .add(type("double", kDouble))
      .add(type("byte", kByte))
      .add(type("short", kShort))
      .add(type("int", kInt))
      .add(type("long", kLong))
      .add(type("java.lang.String", kString));

  metadata.add(type("java.lang.Thread", kThread, "Thread")
                   .add(field("osName", kString, "OS Thread Name"))
                   .add(field("osThreadId", kLong, "OS Thread Id"))
                   .add(field("javaName", kString, "Java Thread Name"))
                   .add(field("javaThreadId", kLong, "Java Thread Id"))
                   .add(field("group", kThreadGroup, "Java Thread Group", kCpool)));
  metadata.add(type("jdk.types.ThreadGroup", kThreadGroup, "Thread Group")
                   .add(field("parent", kThreadGroup, "Parent", kCpool))
                   .add(field("name", kString, "Name")));
  metadata.add(type("java.lang.Class", kClass, "Java Class")
                   .add(field("classLoader", kClassLoader, "Class Loader", kCpool))
                   .add(field("name", kSymbol, "Name", kCpool))
                   .add(field("package", kPackage, "Package", kCpool))
                   .add(field("modifiers", kInt, "Access Modifiers"))
                   .add(field("hidden", kBoolean, "Hidden")));
  metadata.add(type("jdk.types.ClassLoader", kClassLoader, "Java Class Loader")
                   .add(field("type", kClass, "Type", kCpool))
                   .add(field("name", kSymbol, "Name", kCpool)));
  metadata.add(type("jdk.types.Package", kPackage, "Package").add(field("name", kSymbol, "Name", kCpool)));
  metadata.add(type("jdk.types.Symbol", kSymbol, "Symbol", nullptr, true).add(field("string", kString, "String")));
  metadata.add(type("jdk.types.Method", kMethod, "Java Method")
                   .add(field("type", kClass, "Type", kCpool))
                   .add(field("name", kSymbol, "Name", kCpool))
                   .add(field("descriptor", kSymbol, "Descriptor", kCpool))
                   .add(field("modifiers", kInt, "Access Modifiers"))
                   .add(field("hidden", kBoolean, "Hidden")));
  metadata.add(type("jdk.types.StackTrace", kStackTrace, "Stacktrace")
                   .add(field("truncated", kBoolean, "Truncated"))
                   .add(field("frames", kStackFrame, "Stack Frames", kArray)));
  metadata.add(type("jdk.types.StackFrame", kStackFrame)
                   .add(field("method", kMethod, "Java Method", kCpool))
                   .add(field("lineNumber", kInt, "Line Number"))
                   .add(field("bytecodeIndex", kInt, "Bytecode Index"))
                   .add(field("type", kFrameType, "Frame Type", kCpool)));
  metadata.add(type("jdk.types.FrameType", kFrameType, "Frame type", nullptr, true)
                   .add(field("description", kString, "Description")));
  metadata.add(type("jdk.types.ThreadState", kThreadState, "Java Thread State", nullptr, true)
                   .add(field("name", kString, "Name")));

  // Candor.label scopes: every sample event's last field, a string (from the chunk's string pool)
  // "key=value,key=value" sorted by key, with '%', ',' and '=' escaped as %25, %2C, %3D; null when
  // the thread had no labels. A string, not a struct: JMC matches event types across chunks by
  // their fields, and a struct type of its own would make every chunk's samples a new type there.
  auto labels = [] {
    return field("labels", kString, "Labels", 0, "the thread's Candor.label scopes: key=value,... sorted by key");
  };

  auto sampleEvent = [&](const char* name, TypeId id, const char* label, const char* description,
                        std::vector<const char*> category) {
    return event(name, id, label, description, std::move(category))
        .add(field("startTime", kLong, "Start Time", kTicks))
        .add(field("sampledThread", kThread, "Thread", kCpool))
        .add(field("stackTrace", kStackTrace, "Stack Trace", kCpool))
        .add(field("state", kThreadState, "Thread State", kCpool))
        .add(labels());
  };
  metadata.add(sampleEvent("jdk.ExecutionSample", kExecutionSample, "Method Profiling Sample",
                           "Snapshot of a running thread's stack, taken by candor on a CPU-time tick",
                           {"Java Virtual Machine", "Profiling"}));
  metadata.add(sampleEvent("candor.WallClockSample", kWallClockSample, "Wall-Clock Sample",
                           "A thread's stack and state, running or not, taken by candor's wall-clock sampler",
                           {"candor"}));
  metadata.add(sampleEvent("candor.SafepointSample", kSafepointSample, "Safepoint Sample",
                           "A thread's stack taken at a global safepoint (JVMTI GetThreadListStackTraces)",
                           {"candor"}));
  metadata.add(sampleEvent("candor.HandshakeSample", kHandshakeSample, "Handshake Sample",
                           "A thread's stack taken in a per-thread handshake (JVMTI GetStackTrace)", {"candor"}));
  // As the JDK writes it, so that jfr, JMC and candor report read it as theirs: the weight is the
  // bytes the sample stands for (engine/AllocSampler.h).
  metadata.add(event("jdk.ObjectAllocationSample", kObjectAllocationSample, "Object Allocation Sample",
                     "An allocation sampled by candor (JVMTI SampledObjectAlloc), weighted by the bytes it stands for",
                     {"Java Application"})
                   .add(field("startTime", kLong, "Start Time", kTicks))
                   .add(field("eventThread", kThread, "Event Thread", kCpool))
                   .add(field("stackTrace", kStackTrace, "Stack Trace", kCpool))
                   .add(field("objectClass", kClass, "Object Class", kCpool))
                   .add(field("weight", kLong, "Sample Weight", 0,
                              "bytes allocated that this sample stands for (an estimate: size / (1 - exp(-size/interval)))"))
                   .add(labels()));
  // As the JDK writes them (a subset of their fields): the duration is the time waited, the
  // class the lock's (engine/LockSampler.h).
  auto lockEvent = [&](const char* name, TypeId id, const char* label, const char* description,
                      const char* classField, const char* classLabel) {
    return event(name, id, label, description, {"Java Application"})
        .add(field("startTime", kLong, "Start Time", kTicks))
        .add(field("duration", kLong, "Duration", kNanos))
        .add(field("eventThread", kThread, "Event Thread", kCpool))
        .add(field("stackTrace", kStackTrace, "Stack Trace", kCpool))
        .add(field(classField, kClass, classLabel, kCpool))
        .add(labels());
  };
  metadata.add(lockEvent("jdk.JavaMonitorEnter", kJavaMonitorEnter, "Java Monitor Blocked",
                         "A wait to enter a contended synchronized block, recorded by candor (lock=)", "monitorClass",
                         "Monitor Class"));
  metadata.add(lockEvent("jdk.ThreadPark", kThreadPark, "Java Thread Park",
                         "A park waiting for a java.util.concurrent lock, recorded by candor (lock=)", "parkedClass",
                         "Class Parked On"));
  metadata.add(event("candor.FailedTick", kFailedTick, "Failed Tick",
                     "A tick that produced no Java stack, in its named failure bucket; "
                     "samples (of every kind) + failed ticks + dropped = ticks",
                     {"candor"})
                   .add(field("startTime", kLong, "Start Time", kTicks))
                   .add(field("sampledThread", kThread, "Thread", kCpool))
                   .add(field("bucket", kString, "Bucket", 0, "e.g. gc_active, unknown_java, not_java_thread"))
                   .add(field("kind", kString, "Sample Kind", 0, "what took the tick: cpu, wall, safepoint or handshake"))
                   .add(labels()));
  metadata.add(event("candor.ProfilerSettings", kProfilerSettings, "Profiler Settings",
                     "How candor sampled: written at the start of every chunk", {"candor"})
                   .add(field("startTime", kLong, "Start Time", kTicks))
                   .add(field("engine", kString, "Events", 0, "what took samples, e.g. cpu, ctimer, wall, cpu+wall"))
                   .add(field("signal", kString, "Signal", 0, "of the CPU engine"))
                   .add(field("interval", kLong, "Interval", kNanos,
                              "CPU time between samples of one thread (the sampler's period without a CPU event)"))
                   .add(field("samplerInterval", kLong, "Sampler Interval", kNanos,
                              "period of the wall, safepoint or handshake sampler (0: none)"))
                   .add(field("options", kString, "Options", 0, "the agent options in effect")));
  metadata.add(event("candor.ProfilerCounters", kProfilerCounters, "Profiler Counters",
                     "The session's tick accounting so far (written at every dump and at stop; the last one "
                     "counts): ticks = recorded + dropped + failures",
                     {"candor"})
                   .add(field("startTime", kLong, "Start Time", kTicks))
                   .add(field("ticks", kLong, "Ticks"))
                   .add(field("recorded", kLong, "Recorded"))
                   .add(field("dropped", kLong, "Dropped", 0, "ticks lost because the sample ring was full"))
                   .add(field("droppedByKind", kString, "Dropped by Kind", 0,
                              "kind=N, or kind=N:VALUE for alloc (bytes) and lock (ns), non-zero kinds only"))
                   .add(field("failures", kLong, "Failures", 0, "ticks in a failure bucket (candor.FailedTick)"))
                   .add(field("duration", kLong, "Profiled Duration", kNanos))
                   .add(field("processCpu", kLong, "Process CPU Time", kNanos)));

  metadata.add(type("jdk.jfr.Label", kLabel, nullptr, "java.lang.annotation.Annotation").add(field("value", kString)));
  metadata.add(type("jdk.jfr.Description", kDescription, nullptr, "java.lang.annotation.Annotation")
                   .add(field("value", kString)));
  metadata.add(type("jdk.jfr.Category", kCategory, nullptr, "java.lang.annotation.Annotation")
                   .add(field("value", kString, nullptr, kArray)));
  metadata.add(type("jdk.jfr.Timestamp", kTimestamp, "Timestamp", "java.lang.annotation.Annotation")
                   .add(field("value", kString)));
  metadata.add(type("jdk.jfr.Timespan", kTimespan, "Timespan", "java.lang.annotation.Annotation")
                   .add(field("value", kString)));

  Element root("root");
  root.add(std::move(metadata));
  root.add(Element("region").attr("locale", "en_US").attr("gmtOffset", "0"));
  return root;
}

class StringTable {
 public:
  uint32_t index(const std::string& s) {
    auto [it, isNew] = index_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (isNew) strings_.push_back(s);
    return it->second;
  }
  void collect(const Element& e) {
    index(e.name);
    for (const auto& [k, v] : e.attributes) {
      index(k);
      index(v);
    }
    for (const Element& c : e.children) collect(c);
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> strings_;
};

void writeElement(Buffer& out, StringTable& table, const Element& e) {
  out.putVarInt(static_cast<int32_t>(table.index(e.name)));
  out.putVarInt(static_cast<int32_t>(e.attributes.size()));
  for (const auto& [k, v] : e.attributes) {
    out.putVarInt(static_cast<int32_t>(table.index(k)));
    out.putVarInt(static_cast<int32_t>(table.index(v)));
  }
  out.putVarInt(static_cast<int32_t>(e.children.size()));
  for (const Element& c : e.children) writeElement(out, table, c);
}

}  // namespace

const Element& metadataRoot() {
  static const Element root = buildRoot();
  return root;
}

void writeMetadataEvent(Buffer& out, uint64_t startTicks, const Element& root) {
  StringTable table;
  table.collect(root);
  Buffer payload;
  payload.putVarLong(kMetadataEvent);
  payload.putVarLong(startTicks);
  payload.putVarLong(0);  // duration
  payload.putVarLong(kMetadataId);
  payload.putVarInt(static_cast<int32_t>(table.strings().size()));
  for (const std::string& s : table.strings()) payload.putString(s);
  writeElement(payload, table, root);
  out.putEvent(payload);
}

}  // namespace candor::jfr
