package dev.sluice.bench.target;

import java.time.Duration;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/** A GreptimeDB standalone started in Docker with Testcontainers. */
public final class ContainerTarget implements Target {
    private final GenericContainer<?> container;
    private final GreptimeTarget target;
    private final String image;

    /**
     * Starts the container.
     *
     * @param image e.g. {@code greptime/greptimedb:latest}
     * @throws IllegalStateException when no Docker engine is reachable
     */
    public ContainerTarget(String image) {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new IllegalStateException("--testcontainers needs a reachable Docker engine, and none was found");
        }
        this.image = image;
        this.container = greptime(image);
        container.start();
        this.target = new GreptimeTarget(container.getHost() + ":" + container.getMappedPort(4001),
                container.getHost() + ":" + container.getMappedPort(4000), "public", null, null);
    }

    /**
     * Describes the GreptimeDB standalone container the benchmark and the integration test use.
     *
     * @param image the image
     * @return a container, not started
     */
    @SuppressWarnings("resource")
    public static GenericContainer<?> greptime(String image) {
        return new GenericContainer<>(DockerImageName.parse(image))
                .withExposedPorts(4000, 4001)
                .withCommand("standalone", "start", "--http-addr", "0.0.0.0:4000", "--rpc-bind-addr", "0.0.0.0:4001")
                .waitingFor(Wait.forHttp("/health").forPort(4000).withStartupTimeout(Duration.ofMinutes(2)));
    }

    @Override
    public String endpoint() {
        return target.endpoint();
    }

    @Override
    public String description() {
        return "GreptimeDB " + image + " in Docker (Testcontainers) at " + target.endpoint();
    }

    @Override
    public void reset(String table) throws Exception {
        target.reset(table);
    }

    @Override
    public long count(String table) throws Exception {
        return target.count(table);
    }

    @Override
    public void close() {
        container.stop();
    }
}
