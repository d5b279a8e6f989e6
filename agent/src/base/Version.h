// The agent's version and the git commit it was built from, as `candor --version` prints them:
// one line, "candor 0.1.0 (commit 0123456789ab)". Both come from the build (agent/CMakeLists.txt
// reads the version from the root pom.xml, the commit from git or -DCANDOR_COMMIT), so the agent
// and the Java tools of one build say the same.
#pragma once
#include <string>

namespace candor {

const char* version();
const char* gitCommit();
std::string versionLine();

}  // namespace candor
