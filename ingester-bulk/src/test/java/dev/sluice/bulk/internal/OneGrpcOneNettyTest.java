package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A bulk user's classpath holds one gRPC release and one Netty release, the client's, although Arrow Flight's
 * poms ask for older ones: read from the jars this module's tests run with (its dependencies as resolved).
 */
@SharesJvm
class OneGrpcOneNettyTest {
    private static final Pattern JAR = Pattern.compile("/(io/grpc|io/netty)/([^/]+)/([^/]+)/[^/]+\\.jar$");

    @Test
    void grpcAndNettyJarsEachComeAtOneVersionAndNoTcnative() {
        List<String> entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(e -> e.replace('\\', '/')).collect(Collectors.toList());
        Set<String> grpc = new TreeSet<>();
        Set<String> netty = new TreeSet<>();
        for (String e : entries) {
            Matcher m = JAR.matcher(e);
            if (m.find()) {
                (m.group(1).equals("io/grpc") ? grpc : netty).add(m.group(3));
                assertFalse(m.group(2).startsWith("netty-tcnative"), e);
            }
        }
        assertTrue(entries.stream().anyMatch(e -> e.contains("/io/grpc/grpc-netty-shaded/")), entries::toString);
        assertTrue(entries.stream().anyMatch(e -> e.contains("/io/netty/netty-buffer/")), entries::toString);
        assertEquals(1, grpc.size(), "gRPC versions: " + grpc);
        assertEquals(1, netty.size(), "Netty versions: " + netty);
        assertEquals(grpcVersionOfTheClient(), grpc.iterator().next());
    }

    /** The version of the gRPC the client's calls run on (grpc-netty-shaded's manifest). */
    private static String grpcVersionOfTheClient() {
        String v = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.class.getPackage().getImplementationVersion();
        if (v != null) {
            return v;
        }
        String where = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.class.getProtectionDomain()
                .getCodeSource().getLocation().getPath();
        Matcher m = Pattern.compile("/grpc-netty-shaded/([^/]+)/").matcher(where);
        assertTrue(m.find(), where);
        return m.group(1);
    }
}
