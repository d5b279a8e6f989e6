// Inputs that the fuzzers (agent/fuzz) once found crashing or misbehaving, kept as plain unit
// tests so that the regular build catches a regression without clang.
#include <gtest/gtest.h>

#include "control/OptionParser.h"

using namespace candor;

TEST(ParserRegression, EventNameWithAValueIsAnErrorNotACrash) {
  // -agentpath:libcandor.so=event=cpu,wall=1 dereferenced a null OptionSpec and killed the JVM.
  for (const char* text : {"event=cpu,wall=1", "event=ctimer,handshake=", "start,event=cpu,safepoint=x,file=a.html"}) {
    ParseResult r = parseOptions(text);
    EXPECT_FALSE(r.ok) << text;
    EXPECT_NE(r.error.find("takes no value"), std::string::npos) << text << ": " << r.error;
  }
  EXPECT_TRUE(parseOptions("event=cpu,wall").ok);
}
