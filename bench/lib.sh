# The measuring functions bench/run, bench/scale, bench/h3, bench/cg and bench/floor-counts share (sourced): a server's CPU ticks,
# one wrk or h2load run as "req/s bytes/s p50 p99 cpu-us/req", the median of runs. CLIENT_CPUS
# (default 1) and CLIENT_THREADS (1) place the client, SERVER_CPUS (0) the server; DUR is each
# run's length in seconds.

# WHY: after the last ')': a process name may hold spaces and shift the fields;
# the children too (nginx's workers), as a process's own ticks hold its threads
proc_ticks() {
	local p t=0
	for p in $1 $(pgrep -P "$1" || true); do
		t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
	done
	echo $t
}

# the CPUs of a list such as 0-3,6, one per line
cpu_set() { echo "$1" | tr , '\n' | awk -F- '{for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c}'; }

# busy ticks (user, nice, system, irq, softirq) of the CPUs in list $1, from /proc/stat
core_ticks() {
	local c
	for c in $(cpu_set "$1"); do echo "cpu$c"; done |
		awk 'NR == FNR {want[$1] = 1; next} ($1 in want) {t += $2 + $3 + $4 + $7 + $8} END {print t}' - /proc/stat
}

# WHY the server's cores when the client is elsewhere: loopback delivery
# that the kernel defers to ksoftirqd is charged to no server process.
# httpterm's own ticks read 6 CPU-us a request while its core was 94 %
# busy at 15 (wrk -c100): the process figure flattered a server by how
# much of its work the kernel deferred. With the client on the same cores
# (bench/scale at N = all cores) only the process's ticks tell them apart.
ticks() {
	if [ -z "$(comm -12 <(cpu_set "${SERVER_CPUS:-0}" | sort) <(cpu_set "${CLIENT_CPUS:-1}" | sort))" ]; then
		core_ticks "${SERVER_CPUS:-0}"
	else
		proc_ticks "$1"
	fi
}
HZ=$(getconf CLK_TCK)

# one run: prints "req/s bytes/s p50 p99 cpu-us/req"
run_wrk() { # pid url conns [header]
	local b a out
	b=$(ticks "$1")
	out=$(taskset -c "${CLIENT_CPUS:-1}" wrk -t"${CLIENT_THREADS:-1}" -c"$3" -d"${DUR}s" --latency ${4:+-H "$4"} "$2")
	a=$(ticks "$1")
	echo "$out" | awk -v a="$a" -v b="$b" -v hz="$HZ" '
		/Requests\/sec/ {r=$2} /Transfer\/sec/ {t=$2}
		/requests in/ {n=$1}
		$1=="50%" {p50=$2} $1=="99%" {p99=$2}
		END { m = t ~ /GB/ ? 1e9 : t ~ /MB/ ? 1e6 : t ~ /KB/ ? 1e3 : 1; sub(/[A-Za-z]+/, "", t)
		      printf "%.0f %.0f %s %s %.2f\n", r, t * m, p50, p99, (a - b) * 1e6 / hz / n }'
}
run_h2load() { # pid url [conns]
	local b a out
	b=$(ticks "$1")
	out=$(taskset -c "${CLIENT_CPUS:-1}" h2load -t "${CLIENT_THREADS:-1}" -c "${3:-10}" -m 10 -D "$DUR" "$2" 2>/dev/null)
	a=$(ticks "$1")
	echo "$out" | awk -v a="$a" -v b="$b" -v hz="$HZ" '
		/^finished in/ {gsub(",", "", $4); r=$4; s=$3; sub(/s$/, "", s); if (!n) n = r * s}
		/^requests:/ {n=$6}
		/^status codes:/ {if ($3 + 0 == 0) print "warning: h2load saw no 2xx response" > "/dev/stderr"}
		/^time for request:/ {p50=$5 "(mean)"}
		END { printf "%.0f %.0f %s %s %.2f\n", r, 0, p50, "-", (a - b) * 1e6 / hz / (n ? n : 1) }'
}
median() { sort -n -k1,1 | awk '{l[NR]=$0} END {print l[int((NR + 1) / 2)]}'; }

# the requests a client run got answered, from its summary in <file> (hxload's
# or h2load's). WHY not the count asked for: a server under valgrind is slow
# enough that TLS handshakes time out, and a run that served 7,770 of 12,000
# made the difference of two runs meaningless (h1 over TLS read 4,510 where it
# was 16,659)
served_of() {
	awk '/^requests [0-9]+ in / { n = $2; for (i = 2; i <= NF; i++) if ($i ~ /^errors/) n -= $(i - 1) }
		/^requests: [0-9]+ total/ { n = $8 } END { print n + 0 }' "$1"
}

# <total a> <total b> <served a> <served b>: what two runs' totals differ by,
# per request they served more, "n/a" when the second served no more
diff_per_served() {
	echo "$@" | awk '{ if ($4 > $3) printf "%.2f\n", ($2 - $1) / ($4 - $3); else print "n/a" }'
}
