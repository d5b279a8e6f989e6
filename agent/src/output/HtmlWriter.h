// The interactive flame graph: viewer/flamegraph.html with the profile's tree embedded.
#pragma once
#include <ostream>
#include <string>

#include "output/ProfileReport.h"

namespace candor {

// The tree as the viewer's JSON (viewer/README.md).
std::string flameGraphJson(const ProfileReport& report);
// Writes the page; false if the embedded template lacks the data marker.
bool writeHtml(const ProfileReport& report, std::ostream& out);

// The viewer template, embedded at build time (generated source).
extern const char kFlameGraphTemplate[];

}  // namespace candor
