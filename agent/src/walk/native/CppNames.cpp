#include "walk/native/CppNames.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace candor {

namespace {
bool isIdent(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// At `i`, the word "operator" that starts an operator name? Returns the index after the whole
// operator name ("operator<<", "operator()", "operator new[]", "operator bool"), else i.
size_t skipOperator(std::string_view s, size_t i) {
  static constexpr std::string_view kOp = "operator";
  if (s.substr(i, kOp.size()) != kOp || (i > 0 && isIdent(s[i - 1]))) return i;
  size_t j = i + kOp.size();
  if (j < s.size() && isIdent(s[j])) return i;  // "operators", an ordinary identifier
  while (j < s.size() && s[j] == ' ') j++;
  if (j < s.size() && isIdent(s[j])) {  // new, delete, a conversion to a named type
    while (j < s.size() && isIdent(s[j])) j++;
    if (s.substr(j, 2) == "[]") j += 2;
    return j;
  }
  // Symbolic operators: at most three characters ("<<=", "->*"), "()" and "[]" included.
  static constexpr std::string_view kOpChars = "<>=!+-*/%^&|~,()[]";
  size_t end = j;
  while (end < s.size() && end - j < 3 && kOpChars.find(s[end]) != std::string_view::npos) end++;
  if (s.substr(j, 2) == "()" || s.substr(j, 2) == "[]") end = j + 2;
  if (s.substr(end, 2) == " <") end++;  // "operator< <T>": the space belongs to the name
  return end;
}

// The position of the '(' opening the trailing parameter list, or npos.
size_t parameterList(std::string_view s) {
  size_t close = s.rfind(')');
  if (close == std::string_view::npos) return close;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == ')') depth++;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// The start of the qualified name after a leading return type ("void ns::f<int>" → "ns::f<int>").
size_t afterReturnType(std::string_view s) {
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    size_t op = skipOperator(s, i);
    if (op != i) {
      i = op - 1;
      continue;
    }
    char c = s[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') depth++;
    if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) depth--;
    if (c == ' ' && depth == 0) start = i + 1;
  }
  return start;
}
}  // namespace

std::string shortenDemangled(std::string_view s) {
  size_t clone = s.find(" [clone ");
  if (clone != std::string_view::npos) s = s.substr(0, clone);
  size_t params = parameterList(s);
  if (params != std::string_view::npos && params > 0) s = s.substr(0, params);
  s = s.substr(afterReturnType(s));
  return std::string(s);
}

std::string nativeFrameName(const char* symbol) {
  if (strncmp(symbol, "_Z", 2) != 0) return symbol;
  int status = 0;
  char* demangled = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return symbol;
  std::string name = shortenDemangled(demangled);
  free(demangled);
  return name.empty() ? std::string(symbol) : name;
}

}  // namespace candor
