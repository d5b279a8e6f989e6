#include "output/ReportFiles.h"

#include <functional>
#include <ostream>

#include "base/Log.h"
#include "base/Options.h"
#include "output/CollapsedWriter.h"
#include "output/HtmlWriter.h"
#include "output/OtlpWriter.h"
#include "output/OutputFile.h"
#include "output/StatsWriter.h"
#include "output/SummaryWriter.h"

namespace candor {

namespace {

void writeLogged(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::string why;
  if (!writeOutputFileStreamed(path, write, &why)) logError("cannot write %s: %s", path.c_str(), why.c_str());
  else logInfo("wrote %s", path.c_str());
}

}  // namespace

bool writeReportFiles(const ProfileReport& report, const std::vector<std::string>& paths,
                      const std::string& statsFile, const std::string& stamp) {
  bool jfr = false;
  for (const std::string& given : paths) {
    OutputFormat format = given == statsFile ? OutputFormat::kStats : outputFormatOf(given);
    jfr = jfr || format == OutputFormat::kJfr;
    if (format == OutputFormat::kJfr || format == OutputFormat::kUnknown) continue;
    const std::string path = stamp.empty() ? given : sideOutputPath(given, stamp);
    writeLogged(path, [&](std::ostream& out) {
      switch (format) {
        case OutputFormat::kHtml: writeHtml(report, out); break;
        case OutputFormat::kCollapsed: writeCollapsed(report.snapshot, out); break;
        case OutputFormat::kSummary: writeSummary(report, out); break;
        case OutputFormat::kStats: writeStats(report, out); break;
        case OutputFormat::kOtlp: writeOtlp(report, out); break;
        case OutputFormat::kJfr:
        case OutputFormat::kUnknown: break;
      }
    });
    // Allocations and locks beside another profile: theirs goes next to it, x-alloc.html, x-lock.html.
    if (format != OutputFormat::kHtml && format != OutputFormat::kCollapsed) continue;
    for (const ValueProfile* side : report.sideProfiles()) {
      ProfileReport view = report.viewOf(*side);
      writeLogged(sideOutputPath(path, side->kind), [&](std::ostream& out) {
        if (format == OutputFormat::kHtml) writeHtml(view, out);
        else writeCollapsed(view.snapshot, out);
      });
    }
  }
  return jfr;
}

}  // namespace candor
