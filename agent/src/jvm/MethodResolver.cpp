#include "jvm/MethodResolver.h"

#include <algorithm>

#include "jvm/Jvm.h"
#include "jvm/ModifiedUtf8.h"
#include "jvm/StubNames.h"

namespace candor {

std::string javaClassName(const char* sig) {
  std::string s = sig != nullptr ? sig : "";
  int dims = 0;
  while (!s.empty() && s[0] == '[') {
    s.erase(0, 1);
    dims++;
  }
  if (s.size() >= 2 && s.front() == 'L' && s.back() == ';') s = s.substr(1, s.size() - 2);
  std::replace(s.begin(), s.end(), '/', '.');
  for (int i = 0; i < dims; i++) s += "[]";
  return s;
}

int32_t MethodInfo::lineAt(int32_t bci) const {
  int32_t line = 0;
  for (const auto& [start, l] : lines) {
    if (start > bci) break;
    line = l;
  }
  return line;
}

std::string MethodInfo::frameName(int32_t bci, bool withLine) const {
  std::string name = className.empty() ? methodName : className + "." + methodName;
  if (withLine && bci >= 0) {
    int32_t line = lineAt(bci);
    if (line > 0) name += ":" + std::to_string(line);
  }
  return name;
}

const MethodInfo& MethodResolver::resolve(jmethodID method) {
  MethodInfo& info = cache_[method];
  info.lastInterval = interval_;
  if (info.resolved) return info;
  info.resolved = true;
  if (StubNames::isStub(method)) {  // walk=vm's generated-code frame: no JVMTI call for a tag
    info.methodName = "[stub] " + StubNames::nameOf(method);
    return info;
  }
  char* name = nullptr;
  char* sig = nullptr;
  jclass klass = nullptr;
  if (method == nullptr || jvmti_->GetMethodName(method, &name, &sig, nullptr) != JVMTI_ERROR_NONE) {
    info.methodName = "[unknown_method]";
    return info;
  }
  info.methodName = standardUtf8(name);
  info.signature = standardUtf8(sig);
  jint modifiers = 0;
  if (jvmti_->GetMethodModifiers(method, &modifiers) == JVMTI_ERROR_NONE) info.modifiers = modifiers;
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(name));
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(sig));
  char* classSig = nullptr;
  if (jvmti_->GetMethodDeclaringClass(method, &klass) == JVMTI_ERROR_NONE &&
      jvmti_->GetClassSignature(klass, &classSig, nullptr) == JVMTI_ERROR_NONE) {
    info.className = javaClassName(standardUtf8(classSig).c_str());
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(classSig));
    jint classModifiers = 0;
    if (jvmti_->GetClassModifiers(klass, &classModifiers) == JVMTI_ERROR_NONE) info.classModifiers = classModifiers;
  }
  // The writer is a long-lived attached thread: local references would pile up until it exits.
  JNIEnv* env = Jvm::currentEnv();
  if (klass != nullptr && env != nullptr) env->DeleteLocalRef(klass);
  jint count = 0;
  jvmtiLineNumberEntry* table = nullptr;
  if (jvmti_->GetLineNumberTable(method, &count, &table) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < count; i++) {
      info.lines.emplace_back(static_cast<int32_t>(table[i].start_location), table[i].line_number);
    }
    std::sort(info.lines.begin(), info.lines.end());
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(table));
  }
  return info;
}

size_t MethodInfo::bytes() const {
  return className.capacity() + methodName.capacity() + signature.capacity() + lines.capacity() * sizeof(lines[0]);
}

void MethodResolver::startInterval() {
  forgetOlderThan(cache_, interval_);
  interval_++;
}

size_t MethodResolver::bytes() const { return cacheBytes(cache_); }

}  // namespace candor
