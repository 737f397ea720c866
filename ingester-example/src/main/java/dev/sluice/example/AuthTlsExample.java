package dev.sluice.example;

import dev.sluice.AuthInfo;
import dev.sluice.data.DataType;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.TlsConfig;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Basic auth over TLS. Against a real server: {@code --endpoint host:4001 --user U --password P [--ca ca.pem]}
 * (without {@code --ca}, the system trust store). Embedded: a throw-away CA and a TLS testkit with a user.
 */
public final class AuthTlsExample {
    private AuthTlsExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port --user U --password P --ca ca.pem]}
     * @return rows stored on the embedded testkit (-1 against a real server)
     * @throws Exception when certificates cannot be made
     */
    public static long run(String[] args) throws Exception {
        String endpoint = ExampleTarget.option(args, "--endpoint");
        String user = ExampleTarget.option(args, "--user");
        String password = ExampleTarget.option(args, "--password");
        String ca = ExampleTarget.option(args, "--ca");
        GreptimeTestServer embedded = null;
        TlsConfig tls = ca != null ? TlsConfig.newBuilder().trustCertificates(Path.of(ca)).build() : TlsConfig.newBuilder().build();
        if (endpoint == null) {
            Path dir = Files.createTempDirectory("sluice-tls");
            TestCertificates certs = new TestCertificates(dir);
            Path caPem = certs.ca();
            Path[] server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
            user = "admin";
            password = "s3cret";
            embedded = GreptimeTestServer.builder().user(user, password).tls(server[0], server[1], null).start();
            endpoint = embedded.endpoint();
            tls = TlsConfig.newBuilder().trustCertificates(caPem).build();
            System.out.println("no --endpoint given: TLS testkit at " + endpoint + " trusting a throw-away CA");
        }
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public")
                .authInfo(new AuthInfo(user, password)).tls(tls).build());
        try {
            TableSchema schema = TableSchema.newBuilder("example_secure").addTag("k", DataType.String)
                    .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
            RegularWriteExample.report("write over TLS as " + user, db.write(Table.from(schema).addRow("a", 1L, 1L)).join());
            System.out.println("options: " + db.options()); // the password and keys never appear
            return embedded != null ? embedded.rowCount("example_secure") : -1;
        } finally {
            db.shutdownGracefully();
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /**
     * Entry point.
     *
     * @param args see {@link #run}
     * @throws Exception when certificates cannot be made
     */
    public static void main(String[] args) throws Exception {
        run(args);
    }
}
