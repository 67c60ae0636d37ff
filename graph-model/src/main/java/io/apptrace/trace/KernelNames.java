package io.apptrace.trace;

import io.apptrace.proto.KernelInfo;

/**
 * Display names of kernels: the demangled name without its parameter list and return type
 * ({@code vector_add}, {@code ns::scale<float>}). The interposer demangles with the C++ runtime
 * when the program has one; otherwise the name is taken from the mangled name here.
 */
public final class KernelNames {
  private KernelNames() {}

  /** The display name of a kernel. */
  public static String of(KernelInfo info) {
    if (!info.getDemangledName().isEmpty()) {
      return withoutSignature(info.getDemangledName());
    }
    return fromMangled(info.getMangledName());
  }

  /**
   * Drops the parameter list and, for template functions, the return type: {@code "void
   * scale<float>(float*, int)"} becomes {@code "scale<float>"}.
   */
  public static String withoutSignature(String demangled) {
    String s = demangled.strip();
    int end = s.length();
    if (s.endsWith(")")) {
      int depth = 0;
      for (int i = s.length() - 1; i >= 0; i--) {
        char c = s.charAt(i);
        if (c == ')') {
          depth++;
        } else if (c == '(' && --depth == 0) {
          end = i;
          break;
        }
      }
    }
    String name = s.substring(0, end);
    int depth = 0;
    int cut = 0;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '<' || c == '(') {
        depth++;
      } else if (c == '>' || c == ')') {
        depth--;
      } else if (c == ' ' && depth == 0) {
        cut = i + 1; // a return type precedes the name
      }
    }
    return name.substring(cut).strip();
  }

  /**
   * The name part of a mangled name ({@code _ZN2ns6kernelEPf} to {@code ns::kernel}); template
   * arguments are shown as {@code <...>}. A name that is not mangled is returned as it is.
   */
  public static String fromMangled(String mangled) {
    if (!mangled.startsWith("_Z")) {
      return mangled;
    }
    StringBuilder out = new StringBuilder();
    int i = 2;
    boolean nested = i < mangled.length() && mangled.charAt(i) == 'N';
    if (nested) {
      i++;
      while (i < mangled.length() && "rVKRO".indexOf(mangled.charAt(i)) >= 0) {
        i++;
      }
    }
    while (i < mangled.length()) {
      char c = mangled.charAt(i);
      if (c == 'L') {
        i++;
        continue;
      }
      if (c == 'I') {
        out.append("<...>");
        i = skipTemplateArgs(mangled, i);
        continue;
      }
      if (!Character.isDigit(c)) {
        break;
      }
      int j = i;
      while (j < mangled.length() && Character.isDigit(mangled.charAt(j))) {
        j++;
      }
      int len = Integer.parseInt(mangled.substring(i, j));
      if (j + len > mangled.length()) {
        return mangled;
      }
      if (out.length() > 0) {
        out.append("::");
      }
      out.append(mangled, j, j + len);
      i = j + len;
      if (!nested) {
        if (i < mangled.length() && mangled.charAt(i) == 'I') {
          out.append("<...>");
        }
        break;
      }
    }
    return out.length() == 0 ? mangled : out.toString();
  }

  private static int skipTemplateArgs(String s, int i) {
    int depth = 0;
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 'I') {
        depth++;
      } else if (c == 'E' && --depth == 0) {
        return i + 1;
      }
    }
    return i;
  }
}
