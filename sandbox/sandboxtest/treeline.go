package sandboxtest

// TreeLine is a shell line that leaves behind what a call must not: a
// child that ignores SIGTERM and SIGHUP, and a daemon that forked twice,
// called setsid, closed its standard streams and ignores them too. It
// prints "started" and waits. [Tree] finds what it left.
const TreeLine = `(trap '' TERM HUP; exec sleep 1000) & (setsid sh -c 'trap "" TERM HUP; sleep 1000; :' tree-daemon </dev/null >/dev/null 2>&1 &); echo started; wait`
