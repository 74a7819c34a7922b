package launch

// AnyUnixSocket is the [sandbox] unix_sockets entry that allows every Unix
// socket (on every platform, so that configuration parses everywhere).
const AnyUnixSocket = "*"
