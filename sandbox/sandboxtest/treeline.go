package sandboxtest

// TreeLine is a shell line that leaves behind what a call must not: a
// child that ignores SIGTERM, and a daemon that forked twice, called setsid
// and closed its standard streams. It prints "started" and waits.
const TreeLine = `(trap '' TERM; exec sleep 1000) & (setsid sh -c 'sleep 1000; :' tree-daemon </dev/null >/dev/null 2>&1 &); echo started; wait`
