package dev.candor.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ResultTextTest {

    @Test
    void topSelfRowsThenTheFilesWithTheAllocCompanionsTheAgentWrote(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("flame-cpu+alloc.html");
        Path txt = dir.resolve("summary-cpu+alloc.txt");
        Path collapsed = dir.resolve("collapsed-cpu+alloc.collapsed");
        Files.writeString(html, "page");
        Files.writeString(dir.resolve("flame-cpu+alloc-alloc.html"), "bytes page");
        Files.writeString(txt, String.join("\n", "candor profile summary", "",
                "Top methods by self time (percent of all ticks):",
                "    self%  total%   samples  method",
                "   90.00%  90.00%        90  a.B.hot",
                "   10.00%  10.00%        10  a.B.cold",
                "", "Top methods by total time (percent of all ticks):", ""));
        assertEquals(String.join("\n",
                "Top methods by self time (percent of all ticks):",
                "    self%  total%   samples  method",
                "   90.00%  90.00%        90  a.B.hot",
                "   10.00%  10.00%        10  a.B.cold",
                "candor profile of the measurement iterations:",
                "  " + html,
                "  " + dir.resolve("flame-cpu+alloc-alloc.html"),
                "  " + txt,
                "  " + collapsed + "  (not written; see the candor: lines above)", ""),
                ResultText.of(List.of(html, txt, collapsed)));
    }
}
