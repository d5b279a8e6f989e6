#include "jvm/ClassNames.h"

namespace candor {

ClassNames& ClassNames::instance() {
  static ClassNames* names = new ClassNames();  // never destroyed: callbacks may run during exit
  return *names;
}

uint32_t ClassNames::intern(const char* signature) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, isNew] = ids_.try_emplace(signature, nextId_);
  if (isNew) {
    nextId_++;
    byId_.emplace(it->second, Entry{it->first, interval_});
  } else {
    byId_[it->second].lastInterval = interval_;
  }
  return it->second;
}

std::string ClassNames::signature(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byId_.find(id);
  return it != byId_.end() ? it->second.signature : std::string();
}

void ClassNames::startInterval() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = byId_.begin(); it != byId_.end();) {
    if (it->second.lastInterval + 1 < interval_) {
      ids_.erase(it->second.signature);
      it = byId_.erase(it);
    } else {
      ++it;
    }
  }
  interval_++;
}

size_t ClassNames::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return byId_.size();
}

std::string ClassNames::javaName(uint32_t id) const {
  std::string sig = signature(id);
  return sig.empty() ? "[unknown class]" : javaNameOf(sig);
}

std::string ClassNames::javaNameOf(const std::string& sig) {
  size_t dims = 0;
  while (dims < sig.size() && sig[dims] == '[') dims++;
  std::string base = sig.substr(dims);
  std::string name;
  if (base.size() > 2 && base.front() == 'L' && base.back() == ';') {
    name = base.substr(1, base.size() - 2);
    for (char& c : name) c = c == '/' ? '.' : c;
  } else if (base.size() == 1) {
    switch (base[0]) {
      case 'Z': name = "boolean"; break;
      case 'B': name = "byte"; break;
      case 'C': name = "char"; break;
      case 'S': name = "short"; break;
      case 'I': name = "int"; break;
      case 'J': name = "long"; break;
      case 'F': name = "float"; break;
      case 'D': name = "double"; break;
      default: name = base;
    }
  } else {
    name = base;  // already a plain name
    for (char& c : name) c = c == '/' ? '.' : c;
  }
  for (size_t i = 0; i < dims; i++) name += "[]";
  return name;
}

uint32_t ClassNames::intern(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  if (klass == nullptr || jvmti->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE ||
      signature == nullptr) {
    return 0;
  }
  uint32_t id = intern(signature);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  return id;
}

}  // namespace candor
