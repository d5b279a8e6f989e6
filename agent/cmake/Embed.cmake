# Writes OUTPUT: a C++ source defining candor::kFlameGraphTemplate with the bytes of INPUT.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" len)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUTPUT} "// Generated from viewer/flamegraph.html by agent/cmake/Embed.cmake. Do not edit.\n"
  "namespace candor {\nextern const char kFlameGraphTemplate[] = {\n${bytes}0x00};\n}\n")
