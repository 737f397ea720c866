package dev.sluice;

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

    @Override
    public String toString() {
        return "AuthInfo{username=" + username + ", password=****}";
    }
}
