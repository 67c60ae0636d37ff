package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace file {@code apptrace run -o FILE} writes: never through a symbolic link planted at
 * FILE, and created with the user's umask.
 */
class RunOutputFileTest {
  /** umask(2), which the JDK does not offer. */
  interface Umask extends Library {
    Umask LIBC = Native.load("c", Umask.class);

    int umask(int mask);
  }

  @TempDir Path tmp;

  /** A link to an existing file: refused, the file untouched, and the program never started. */
  @Test
  void symbolicLinkToAFileIsRefusedNotFollowed() throws Exception {
    Path victim = Files.writeString(tmp.resolve("victim"), "precious");
    Path link = Files.createSymbolicLink(tmp.resolve("t.apptrace"), victim);
    Path ran = tmp.resolve("ran");
    Cli r = Cli.run("run", "--sim", "-q", "-o", link.toString(), "touch", ran.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("apptrace run: ").contains("is a symbolic link");
    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(ran).doesNotExist();
  }

  /** A dangling link, planted to make apptrace create a file elsewhere: refused, nothing created. */
  @Test
  void danglingSymbolicLinkIsRefusedAndCreatesNothing() throws Exception {
    Path elsewhere = tmp.resolve("elsewhere");
    Path link = Files.createSymbolicLink(tmp.resolve("t.apptrace"), elsewhere);
    Cli r = Cli.run("run", "--sim", "-q", "-o", link.toString(), Cli.cudaTest("vecadd"));
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("symbolic link");
    assertThat(elsewhere).doesNotExist();
    assertThat(Files.isSymbolicLink(link)).isTrue();
  }

  /** The trace's permissions are 0666 less the umask: 0600 under 077, 0644 under 022. */
  @Test
  void traceIsCreatedWithTheUsersUmask() throws Exception {
    int saved = Umask.LIBC.umask(077);
    try {
      Path strict = tmp.resolve("strict.apptrace");
      assertThat(Cli.run("run", "--sim", "-q", "-o", strict.toString(), Cli.cudaTest("vecadd")).exit()).isZero();
      Umask.LIBC.umask(022);
      Path open = tmp.resolve("open.apptrace");
      assertThat(Cli.run("run", "--sim", "-q", "-o", open.toString(), Cli.cudaTest("vecadd")).exit()).isZero();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(strict, LinkOption.NOFOLLOW_LINKS)))
          .isEqualTo("rw-------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(open, LinkOption.NOFOLLOW_LINKS)))
          .isEqualTo("rw-r--r--");
    } finally {
      Umask.LIBC.umask(saved);
    }
  }
}
