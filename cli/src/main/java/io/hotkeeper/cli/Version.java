package io.hotkeeper.cli;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** {@code --version} of every subcommand: the project version, filtered into a resource by the build. */
final class Version implements IVersionProvider {
    /** The version the build wrote into {@code version.properties}. */
    static String number() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the build");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }

    @Override
    public String[] getVersion() {
        return new String[] {"hotkeeper " + number()};
    }
}
