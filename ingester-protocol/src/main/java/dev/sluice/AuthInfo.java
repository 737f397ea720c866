package dev.sluice;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * Basic-auth credentials. {@link #toString()} never shows the password.
 *
 * @param username the user name
 * @param password the password
 */
public record AuthInfo(String username, String password) {
    /** Checks both parts are present. */
    public AuthInfo {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
    }

    /**
     * Renders the {@code Basic base64(user:password)} header value DoPut reads.
     *
     * @return the header value
     */
    public String basicHeader() {
        return "Basic " + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "AuthInfo{username=" + username + ", password=****}";
    }
}
