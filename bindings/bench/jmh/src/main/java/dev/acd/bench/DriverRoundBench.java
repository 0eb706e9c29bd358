// JMH entry points of the driver round (DriverRound.kt): a fresh client per
// invocation, as criterion's iter_batched gives the Rust bench one.
package dev.acd.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** One driver round per invocation, in microseconds. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DriverRoundBench {
    private final DriverRound round = new DriverRound();
    private acd.Driver client;

    /** A fresh client: the per-user limit never makes a round wait. */
    @Setup(Level.Invocation)
    public void freshClient() {
        client = round.newClient();
    }

    /** Frees the generated client's native side now rather than on collection. */
    @TearDown(Level.Invocation)
    public void close() {
        client.close();
    }

    /** Through the Driver of the ffi crate. */
    @Benchmark
    public String coarseDriverRound() {
        return round.coarse(client);
    }

    /** Through the Driver, the batch parsed once with kotlinx.serialization. */
    @Benchmark
    public int parsedDriverRound() {
        return round.parsed(client);
    }
}
