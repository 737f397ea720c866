package dev.sluice.zerocopy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of the test server that can stop reading what the client sends (a peer that stopped
 * reading: the client's writes back up into its transport) and cut every connection.
 */
final class FreezableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;
    private volatile boolean closed;
    final AtomicLong forwarded = new AtomicLong();

    FreezableProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.listener = new ServerSocket();
        listener.setReceiveBufferSize(64 * 1024); // small window: a frozen proxy backs writes up into the client
        listener.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Thread accept = new Thread(this::acceptLoop, "zc-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    String endpoint() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    void freeze(boolean on) {
        frozen = on;
    }

    /** Closes every connection open now (new ones are still accepted). */
    void cut() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
        sockets.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                client.setReceiveBufferSize(64 * 1024);
                server.setSendBufferSize(64 * 1024);
                sockets.add(client);
                sockets.add(server);
                pump(client, server, true);
                pump(server, client, false);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean upstream) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[32 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                while (true) {
                    while (upstream && frozen && !from.isClosed()) {
                        Thread.sleep(5); // a poll of the freeze flag while the proxy is frozen
                    }
                    int n = in.read(buf);
                    if (n < 0) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                    if (upstream) {
                        forwarded.addAndGet(n);
                    }
                }
            } catch (IOException | InterruptedException e) {
                // connection ended
            } finally {
                try {
                    from.close();
                } catch (IOException ignored) {
                    // nothing
                }
                try {
                    to.close();
                } catch (IOException ignored) {
                    // nothing
                }
            }
        }, "zc-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // nothing
        }
        cut();
    }
}
