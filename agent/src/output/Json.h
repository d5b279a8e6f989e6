// Minimal JSON string escaping shared by the writers.
#pragma once
#include <string>

namespace candor {

// Appends `s` as a JSON string literal; also escapes '<' and '>' so the text is safe to embed
// in an HTML <script> element.
void appendJsonString(std::string& out, const std::string& s);

}  // namespace candor
