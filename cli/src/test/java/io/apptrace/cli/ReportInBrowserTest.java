package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.node.Units;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report of {@code apptrace report} in a real browser (Debian's Chromium, headless): it
 * renders with no console message (no error, no uncaught exception), its script runs to the end,
 * the numbers it shows are those of {@code apptrace replay --json} on the same trace and nodes, and
 * a screenshot of it is left under {@code cli/target/report-screenshots/} for a person to look at.
 * Skipped, saying so, where Chromium is absent ({@code .ci/run} installs it:
 * tools/ci-install-browser).
 */
class ReportInBrowserTest {
  private static final Path SCREENSHOTS = Path.of("target/report-screenshots");
  private static final Path KINETO = Path.of("../graph-model/src/test/resources/io/apptrace/trace"
      + "/FuzzTraceTestInputs/trace/kineto-import.apptrace");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @BeforeEach
  void chromium() {
    assumeTrue(HeadlessChromium.find().isPresent(), "Chromium is absent (" + HeadlessChromium.BINARY
        + "): install it with 'apt-get install chromium' (tools/ci-install-browser) to run the browser tests");
  }

  /** An imported trace with measured GPU times: the measured timeline is drawn beside the projections. */
  @Test
  void aReportOfAnImportedTraceRendersWithTheNumbersOfReplayJson() throws Exception {
    Document page = renderAndCheck(KINETO, "kineto-import", "--node", "dgx1", "--node", "dgx-a100");
    assertThat(page.select("figure.timeline figcaption").eachText()).hasSize(3)
        .first().asString().startsWith("measured (the trace)");
  }

  /** A capture of a program with NVTX ranges: the ranges are lanes of every timeline. */
  @Test
  void aReportOfACaptureWithNvtxRangesShowsThemOnTheTimelines() throws Exception {
    Path trace = tmp.resolve("nvtx.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("nvtx")).exit()).isZero();
    Document page = renderAndCheck(trace, "nvtx-capture", "--node", "ac922", "--node", "dgx1", "--node", "gh200");
    assertThat(page.select("p.note").text()).contains("no measured timeline");
    for (Element svg : page.select("svg.timeline")) {
      assertThat(svg.select("text.group").eachText()).contains("host threads", "NVTX ranges", "streams", "links");
      assertThat(svg.select("rect.range")).isNotEmpty();
    }
    assertThat(page.select("#what-ifs p.empty").text()).isEqualTo("no what-ifs requested");
  }

  /** The check above sees a page's console errors: without it a page full of errors would pass. */
  @Test
  void theConsoleCheckSeesErrorsAndUncaughtExceptions() throws Exception {
    Path bad = tmp.resolve("bad.html");
    Files.writeString(bad, "<!DOCTYPE html><html><body><script>console.error('broken');"
        + " notDefined();</script></body></html>");
    List<String> console = HeadlessChromium.dumpDom(bad, tmp).console();
    assertThat(String.join("\n", console)).contains("broken").contains("Uncaught ReferenceError");
  }

  private Document renderAndCheck(Path trace, String name, String... nodes) throws Exception {
    Path html = tmp.resolve(name + ".html");
    List<String> args = new ArrayList<>(List.of("report", trace.toString(), "-o", html.toString()));
    args.addAll(List.of(nodes));
    Cli report = Cli.run(args.toArray(String[]::new));
    assertThat(report.exit()).as(report.err()).isZero();
    assertThat(report.out()).contains("wrote " + html);

    List<String> replayArgs = new ArrayList<>(List.of("replay", trace.toString(), "--json"));
    replayArgs.addAll(List.of(nodes));
    Cli replay = Cli.run(replayArgs.toArray(String[]::new));
    assertThat(replay.exit()).as(replay.err()).isZero();
    JsonNode json = JSON.readTree(replay.out());

    HeadlessChromium.Output out = HeadlessChromium.dumpDom(html, tmp);
    assertThat(out.console()).as("console messages of the page").isEmpty();
    Document page = Jsoup.parse(out.dom());
    int timelines = page.select("svg.timeline").size();
    assertThat(page.body().attr("data-rendered")).as("the page's script ran to its end")
        .isEqualTo("timelines " + timelines);
    assertThat(page.select("svg.timeline g.axis text.tick")).as("the script drew the time axes").isNotEmpty();

    assertThat(json.get("nodes")).hasSize(nodes.length / 2);
    for (JsonNode n : json.get("nodes")) {
      String node = n.get("node").asText();
      Element row = page.selectFirst("#summary tr[data-node=" + node + "]");
      assertThat(row).as("the summary row of " + node).isNotNull();
      long makespan = n.get("makespan_ns").asLong();
      assertThat(row.selectFirst("td.makespan").attr("data-ns")).isEqualTo(Long.toString(makespan));
      assertThat(row.selectFirst("td.makespan").text()).isEqualTo(Units.time(makespan * 1e-9));
      assertThat(row.selectFirst("td.speedup").attr("data-value"))
          .isEqualTo(Double.toString(n.get("speedup_over_first").asDouble()));
      JsonNode b = n.get("breakdown_ns");
      List<String> categories = new ArrayList<>(List.of("kernels", "memsets", "calls", "host", "idle"));
      b.get("copies_by_kind").fieldNames().forEachRemaining(k -> categories.add("copies " + k));
      for (String c : categories) {
        long ns = c.startsWith("copies ") ? b.get("copies_by_kind").get(c.substring(7)).asLong() : b.get(c).asLong();
        Element cell = row.selectFirst("td[data-category=" + c + "]");
        assertThat(cell).as(node + " " + c).isNotNull();
        assertThat(cell.attr("data-ns")).as(node + " " + c).isEqualTo(Long.toString(ns));
        assertThat(cell.text()).isEqualTo(Units.time(ns * 1e-9));
        if (ns > 0) {
          assertThat(page.select("svg.breakdown rect[data-node=" + node + "][data-category=" + c + "]").attr("data-ns"))
              .isEqualTo(Long.toString(ns));
        }
      }
      List<String> advice = new ArrayList<>();
      n.get("advice").forEach(a -> advice.add(a.asText()));
      assertThat(page.select("ul.advice[data-node=" + node + "] li").eachText()).isEqualTo(advice);
    }
    assertThat(page.select("svg.bandwidth")).hasSize(nodes.length / 2);

    Files.createDirectories(SCREENSHOTS);
    Path png = SCREENSHOTS.resolve(name + ".png");
    Files.deleteIfExists(png);
    HeadlessChromium.Output shot = HeadlessChromium.screenshot(html, png, 1200, 3200, tmp);
    assertThat(shot.console()).isEmpty();
    byte[] bytes = Files.readAllBytes(png);
    assertThat(bytes.length).isGreaterThan(10_000);
    assertThat(new String(bytes, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
    return page;
  }
}
