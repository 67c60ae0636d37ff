package io.apptrace.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import java.util.Random;

/**
 * A {@link Random} whose every draw is taken from the fuzzer's input, so that a structure-aware
 * mutation ({@link FuzzTarget#mutate}) is steered by coverage under Jazzer: each choice it makes
 * (which table, which value, where) is bytes the fuzzer mutates. Past the input's end every draw
 * is 0.
 */
public final class DataRandom extends Random {
  private static final long serialVersionUID = 1L;
  private final transient FuzzedDataProvider data;

  public DataRandom(FuzzedDataProvider data) {
    super(0);
    this.data = data;
  }

  @Override
  protected int next(int bits) {
    // the constructor of Random draws nothing, but may run before data is set
    return data == null ? 0 : data.consumeInt() >>> (32 - bits);
  }
}
