// The JNI entry of the candor-api jar (dev.candor.api.Candor): the application System.load()s
// this library and calls execute0 with an agent option string, and setLabels0 from label scopes. The agent is set up from the
// calling thread's JavaVM exactly as Agent_OnAttach does, so -agentpath, attach and the API all
// reach the same profiler when they load the same file.
#include <jni.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "base/Log.h"
#include "control/Commands.h"
#include "control/OptionParser.h"
#include "control/Profiler.h"
#include "jvm/ModifiedUtf8.h"

using namespace candor;

namespace {

void throwNew(JNIEnv* env, const char* className, const std::string& message) {
  if (env->ExceptionCheck()) return;
  jclass cls = env->FindClass(className);
  if (cls == nullptr) return;  // FindClass has thrown already
  env->ThrowNew(cls, message.c_str());
  env->DeleteLocalRef(cls);
}

// A Java string as standard UTF-8, as outputs need it ("" for null); frees the local reference.
std::string javaString(JNIEnv* env, jstring s) {
  if (s == nullptr) return "";
  std::string out;
  if (const char* chars = env->GetStringUTFChars(s, nullptr); chars != nullptr) {
    out = standardUtf8(chars);
    env->ReleaseStringUTFChars(s, chars);
  }
  env->DeleteLocalRef(s);
  return out;
}

}  // namespace

// Returns the agent's one-line answer ("ok", "idle", "running ...", "ok help"). Throws
// IllegalArgumentException for options the agent rejects and IllegalStateException when the
// command fails (the agent's own message in both cases).
extern "C" JNIEXPORT jstring JNICALL Java_dev_candor_api_Candor_execute0(JNIEnv* env, jclass, jstring jOptions) {
  if (jOptions == nullptr) {
    throwNew(env, "java/lang/NullPointerException", "options");
    return nullptr;
  }
  const char* chars = env->GetStringUTFChars(jOptions, nullptr);
  if (chars == nullptr) return nullptr;  // OutOfMemoryError pending
  std::string text = chars;
  env->ReleaseStringUTFChars(jOptions, chars);

  ParseResult parsed = parseOptions(text.c_str());
  if (!parsed.ok) {
    reply(parsed.options, "error: " + parsed.error);
    throwNew(env, "java/lang/IllegalArgumentException", parsed.error);
    return nullptr;
  }
  // quiet belongs to the session: a later stop/dump/status without it must not undo it
  if (startsSession(parsed.options)) setLogQuiet(parsed.options.quiet);
  if (parsed.options.command != Command::kHelp && parsed.options.command != Command::kVersion) {
    JavaVM* vm = nullptr;
    if (env->GetJavaVM(&vm) != JNI_OK || vm == nullptr || !initJvmti(vm, true)) {
      std::string why = "the candor agent cannot initialize JVMTI in this JVM (see its stderr)";
      reply(parsed.options, "error: " + why);
      throwNew(env, "java/lang/IllegalStateException", why);
      return nullptr;
    }
  }
  CommandResult result = runCommand(parsed.options);
  reply(parsed.options, result.answer);
  if (!result.ok) {
    std::string why = result.answer.rfind("error: ", 0) == 0 ? result.answer.substr(7) : result.answer;
    throwNew(env, "java/lang/IllegalStateException", why);
    return nullptr;
  }
  return env->NewStringUTF(result.answer.c_str());
}

// Candor.label scopes: the calling thread is now in the label set `keyValues` (key, value,
// key, value, ... sorted by key; empty: no labels). Samples of the thread carry it from here on.
// No JVMTI needed: labels set before a session starts are in effect when it does.
extern "C" JNIEXPORT void JNICALL Java_dev_candor_api_Candor_setLabels0(JNIEnv* env, jclass, jobjectArray keyValues) {
  thread_local int tid = static_cast<int>(syscall(SYS_gettid));  // this thread's, never a handler's
  LabelPairs pairs;
  jsize n = keyValues != nullptr ? env->GetArrayLength(keyValues) : 0;
  pairs.reserve(static_cast<size_t>(n / 2));
  for (jsize i = 0; i + 1 < n; i += 2) {
    std::string key = javaString(env, static_cast<jstring>(env->GetObjectArrayElement(keyValues, i)));
    std::string value = javaString(env, static_cast<jstring>(env->GetObjectArrayElement(keyValues, i + 1)));
    if (env->ExceptionCheck()) return;
    pairs.emplace_back(std::move(key), std::move(value));
  }
  Profiler::instance().labels().enter(tid, std::move(pairs));
}
