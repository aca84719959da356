# Sourced by the benchmark scripts: a fresh work directory ($work, removed on exit) and
# benches/fake_openai.py answering on $port (its pid in $server, stopped on exit).
work=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 benches/fake_openai.py "$port" > "$work/server.log" &
server=$!
until grep -q ready "$work/server.log" 2>/dev/null; do
  kill -0 $server 2>/dev/null || { echo "the fake server did not start" >&2; exit 1; }
  sleep 0.05
done
