package io.apptrace.graph;

import static io.apptrace.graph.PtxParamUse.LOAD;
import static io.apptrace.graph.PtxParamUse.STORE;
import static io.apptrace.graph.PtxParamUse.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The PTX dataflow of docs/GRAPH.md ("What the code says"), on kernels as nvcc 13 writes them. */
class PtxParamUseTest {
  /**
   * simpleStreams' init_array(int *g_data, int *factor, int n): {@code g_data[idx] += *factor}.
   * g_data is loaded and stored through, factor only loaded: read-only from the code, though
   * its type is not const. The scalar is neither.
   */
  static final String INIT_ARRAY = """
      .visible .entry _Z10init_arrayPiS_i(
      .param .u64 _Z10init_arrayPiS_i_param_0,
      .param .u64 _Z10init_arrayPiS_i_param_1,
      .param .u32 _Z10init_arrayPiS_i_param_2
      )
      {
      .reg .pred %p<6>;
      .reg .b32 %r<31>;
      .reg .b64 %rd<7>;
      ld.param.u64 %rd3, [_Z10init_arrayPiS_i_param_0];
      ld.param.u64 %rd4, [_Z10init_arrayPiS_i_param_1];
      ld.param.u32 %r13, [_Z10init_arrayPiS_i_param_2];
      cvta.to.global.u64 %rd1, %rd4;
      setp.lt.s32 %p1, %r13, 1;
      @%p1 bra $L__BB0_7;
      cvta.to.global.u64 %rd5, %rd3;
      mov.u32 %r14, %tid.x;
      mad.lo.s32 %r17, %r15, %r16, %r14;
      mul.wide.s32 %rd6, %r17, 4;
      add.s64 %rd2, %rd5, %rd6;
      ld.global.u32 %r27, [%rd2];
      $L__BB0_3:
      ld.global.u32 %r19, [%rd1];
      add.s32 %r20, %r27, %r19;
      st.global.u32 [%rd2], %r20;
      @%p3 bra $L__BB0_3;
      $L__BB0_7:
      ret;
      }""";

  @Test
  void aNonConstPointerOnlyLoadedFromIsReadOnly() {
    PtxParamUse.Uses u = PtxParamUse.of(INIT_ARRAY);
    assertThat(u.param(0)).isEqualTo(LOAD | STORE);
    assertThat(u.param(1)).isEqualTo(LOAD);
    assertThat(u.param(2)).isZero();
  }

  /** heartwall's pattern: no parameter; pointers loaded from a __constant__ struct. */
  @Test
  void pointersLoadedFromAConstantVariableAreFollowed() {
    PtxParamUse.Uses u = PtxParamUse.of("""
        .visible .entry _Z5scalev()
        {
        .reg .b64 %rd<8>;
        ld.const.u32 %r5, [d_params+16];
        ld.const.u64 %rd1, [d_params];
        cvta.to.global.u64 %rd2, %rd1;
        add.s64 %rd4, %rd2, %rd3;
        ld.global.f32 %f1, [%rd4];
        ld.const.u64 %rd5, [d_params+8];
        cvta.to.global.u64 %rd6, %rd5;
        add.s64 %rd7, %rd6, %rd3;
        st.global.f32 [%rd7], %f2;
        ret;
        }""");
    assertThat(u.params()).isEmpty();
    assertThat(u.variable("d_params", 0)).as("in").isEqualTo(LOAD);
    assertThat(u.variable("d_params", 8)).as("out").isEqualTo(STORE);
    assertThat(u.variable("d_params", 16)).as("n, read but no pointer").isZero();
    assertThat(u.variable("other", 0)).as("a variable the kernel never reads").isEqualTo(-1);
  }

  /** A pointer stored to memory or passed to a function cannot be followed: unknown. */
  @Test
  void aPointerThatEscapesIsUnknown() {
    PtxParamUse.Uses u = PtxParamUse.of("""
        .visible .entry k(
        .param .u64 k_param_0,
        .param .u64 k_param_1
        )
        {
        ld.param.u64 %rd1, [k_param_0];
        ld.param.u64 %rd2, [k_param_1];
        st.param.b64 [param0+0], %rd1;
        call.uni helper, (param0);
        atom.global.add.u32 %r1, [%rd2], 1;
        ret;
        }""");
    assertThat(u.param(0) & UNKNOWN).isEqualTo(UNKNOWN);
    assertThat(u.param(1)).isEqualTo(LOAD | STORE);
  }
}
