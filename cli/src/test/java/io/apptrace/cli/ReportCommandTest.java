package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apptrace report}: the HTML file is written as every export is (whole, never through a
 * symbolic link, never over a device), and what is wrong with the command line or its input gets
 * one line and the exit code of its kind. What the page shows, in a browser: ReportInBrowserTest.
 */
class ReportCommandTest {
  private static final String TRACE = "../graph-model/src/test/resources/io/apptrace/trace/FuzzTraceTestInputs/trace"
      + "/two-threads.apptrace";

  @TempDir Path tmp;

  @Test
  void writesOneSelfContainedPageAndSaysWhere() throws Exception {
    Path html = tmp.resolve("r.html");
    Cli r = Cli.run("report", TRACE, "--node", "dgx1", "--node", "ac922", "-o", html.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("apptrace report: wrote " + html + " (open it in a browser; it needs no network)\n");
    String page = Files.readString(html);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("<script>").contains("<style>")
        .doesNotContain("src=\"http").doesNotContain("href=\"http").doesNotContain("<link ");
    assertThat(tmp.resolve("r.html.partial")).doesNotExist();
  }

  @Test
  void badUsageExitsTwoAndBadInputOneWithOneLine() throws Exception {
    Path html = tmp.resolve("r.html");
    Cli noOut = Cli.run("report", TRACE, "--node", "dgx1");
    assertThat(noOut.exit()).isEqualTo(2);
    assertThat(noOut.err()).contains("Missing required option: '--output=OUT.html'");

    Cli badSet = Cli.run("report", TRACE, "--node", "dgx1", "--set", "gpus.gpu0.copy_engine=2", "-o", html.toString());
    assertThat(badSet.exit()).isEqualTo(2);
    assertThat(badSet.err()).startsWith("apptrace report: ").contains("did you mean gpus.gpu0.copy_engines?");

    // as replay: a node that is not there is bad input
    Cli noNode = Cli.run("report", TRACE, "--node", "no-such-node", "-o", html.toString());
    assertThat(noNode.exit()).isEqualTo(1);
    assertThat(noNode.err()).startsWith("apptrace report: ").contains("no bundled node named 'no-such-node'")
        .hasLineCount(1);

    Cli missing = Cli.run("report", tmp.resolve("absent.apptrace").toString(), "--node", "dgx1", "-o", html.toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).startsWith("apptrace report: cannot read ").hasLineCount(1);

    Path garbage = Files.writeString(tmp.resolve("garbage.apptrace"), "not a trace at all");
    Cli bad = Cli.run("report", garbage.toString(), "--node", "dgx1", "-o", html.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.err()).startsWith("apptrace report: ").hasLineCount(1).doesNotContain("Exception");

    Cli roi = Cli.run("report", TRACE, "--node", "dgx1", "--roi", "no-such-range", "-o", html.toString());
    assertThat(roi.exit()).isEqualTo(1);
    assertThat(roi.err()).startsWith("apptrace report: ").doesNotContain("Exception");
    assertThat(html).doesNotExist();
  }

  @Test
  void neverWritesThroughASymbolicLinkOrOverADevice() throws Exception {
    Path victim = Files.writeString(tmp.resolve("victim.txt"), "keep me");
    Path link = Files.createSymbolicLink(tmp.resolve("r.html"), victim);
    Cli r = Cli.run("report", TRACE, "--node", "dgx1", "-o", link.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("apptrace report: cannot write " + link
        + ": it is a symbolic link, which apptrace never writes through\n");
    assertThat(Files.readString(victim)).isEqualTo("keep me");

    Cli device = Cli.run("report", TRACE, "--node", "dgx1", "-o", "/dev/null");
    assertThat(device.exit()).isEqualTo(1);
    assertThat(device.err()).startsWith("apptrace report: cannot write /dev/null: ").hasLineCount(1);

    Cli folder = Cli.run("report", TRACE, "--node", "dgx1", "-o", tmp.resolve("no/such/folder/r.html").toString());
    assertThat(folder.exit()).isEqualTo(1);
    assertThat(folder.err()).startsWith("apptrace report: cannot write ").hasLineCount(1);
  }

  @Test
  void toStandardOutputThePageGoesThereAndTheRestToStandardError() {
    Cli r = Cli.run("report", TRACE, "--node", "dgx1", "-o", "-");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("<!DOCTYPE html>").endsWith("</html>\n");
  }
}
