// The JNI entry of the candor-api jar (dev.candor.api.Candor): the application System.load()s
// this library and calls execute0 with an agent option string. The agent is set up from the
// calling thread's JavaVM exactly as Agent_OnAttach does, so -agentpath, attach and the API all
// reach the same profiler when they load the same file.
#include <jni.h>

#include <string>

#include "base/Log.h"
#include "control/Commands.h"
#include "control/OptionParser.h"

using namespace candor;

namespace {

void throwNew(JNIEnv* env, const char* className, const std::string& message) {
  if (env->ExceptionCheck()) return;
  jclass cls = env->FindClass(className);
  if (cls == nullptr) return;  // FindClass has thrown already
  env->ThrowNew(cls, message.c_str());
  env->DeleteLocalRef(cls);
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
