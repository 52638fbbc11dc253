package io.hotkeeper.cli;

/** A problem with the user's input (a file that cannot be read, ...): one line on stderr, exit code 2. */
final class UserException extends RuntimeException {
    UserException(String message) {
        super(message, null, false, false);
    }
}
