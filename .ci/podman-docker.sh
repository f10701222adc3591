#!/usr/bin/env bash
# Vendored from the workplace's shared/containers/podman-docker.sh, so that CI works on a clean clone without
# it; one change: env also exports TESTCONTAINERS_HOST_OVERRIDE=localhost (see env_lines).
#
# A Docker-API-compatible engine for Testcontainers on a machine without Docker: podman (Debian package) serving
# the Docker API on a unix socket, with images built locally from Debian packages (no image registry is reachable).
#
#   bash podman-docker.sh start     # ~2 min the first time (debootstrap), seconds afterwards; prints env exports
#   eval "$(bash podman-docker.sh env)"   # DOCKER_HOST and TESTCONTAINERS_RYUK_DISABLED for the current shell
#   bash podman-docker.sh stop
#
# Images it provides (tagged under the names tests usually ask for):
#   redis:7, redis:7.0, redis:latest       Debian's redis-server, CMD redis-server --protected-mode no, port 6379
#   debian-local:bookworm                  the same root filesystem, for GenericContainer with an explicit command
# Extra Debian packages for the root filesystem: PODMAN_DOCKER_PACKAGES="postgresql rabbitmq-server" (rebuilds it).
# State lives in $PODMAN_DOCKER_HOME (default /tmp/podman-docker). Needs root and apt-get.
#
# Why the settings below: this kind of machine has cgroups in hybrid mode (crun refuses it, runc works), no
# CAP_SYS_RESOURCE (podman's default rlimits cannot be set), and exec calls over the API otherwise leave a conmon process
# behind for 300 s. Testcontainers then reports "Server Version 4.3.1, API 1.41" and maps ports on the bridge.
set -euo pipefail
HOME_DIR="${PODMAN_DOCKER_HOME:-/tmp/podman-docker}"
PACKAGES="redis-server ${PODMAN_DOCKER_PACKAGES:-}"
SOCK="$HOME_DIR/podman.sock"
export CONTAINERS_CONF="$HOME_DIR/containers.conf" CONTAINERS_STORAGE_CONF="$HOME_DIR/storage.conf"

env_lines() {
	# This machine has a /.dockerenv, so Testcontainers would take itself for a container and reach published
	# ports through the bridge's gateway (10.88.0.1); they are published on this host, so localhost reaches them.
	echo "export DOCKER_HOST=unix://$SOCK TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=localhost"
	echo "export CONTAINERS_CONF=$CONTAINERS_CONF CONTAINERS_STORAGE_CONF=$CONTAINERS_STORAGE_CONF"
}

running() { [ -f "$HOME_DIR/service.pid" ] && kill -0 "$(cat "$HOME_DIR/service.pid")" 2>/dev/null; }

# The Debian mirror and suite apt already uses on this machine.
mirror() {
	local uri
	uri=$(grep -hE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
		| grep -v security | head -n 1 | sed -E 's/^URIs: *//; s/^deb +(\[[^]]*\] +)?//; s/ .*//')
	[ -n "$uri" ] || { echo "no Debian mirror found in apt's sources" >&2; exit 1; }
	echo "$uri"
}

start() {
	mkdir -p "$HOME_DIR"
	if running; then env_lines; return; fi
	export DEBIAN_FRONTEND=noninteractive
	if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends podman runc debootstrap curl >/dev/null
	fi
	local nofile nproc suite
	nofile=$(ulimit -Hn); { [ "$nofile" = unlimited ] || [ "$nofile" -gt 1048576 ]; } && nofile=1048576
	nproc=$(ulimit -Hu); { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
	cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
exit_command_delay = 5
CONF
	# The storage driver must be set before the store is first used.
	cat >"$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "overlay"
graphroot = "$HOME_DIR/storage"
runroot = "$HOME_DIR/run"
CONF
	if [ ! -x "$HOME_DIR/rootfs/usr/bin/redis-server" ] || [ "$(cat "$HOME_DIR/packages" 2>/dev/null)" != "$PACKAGES" ]; then
		rm -rf "$HOME_DIR/rootfs"
		suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
		debootstrap --variant=minbase --include="$(echo $PACKAGES | tr ' ' ',')" "$suite" "$HOME_DIR/rootfs" "$(mirror)" \
			>"$HOME_DIR/debootstrap.log" 2>&1 || { tail -n 20 "$HOME_DIR/debootstrap.log" >&2; exit 1; }
		rm -rf "$HOME_DIR"/rootfs/var/cache/apt/archives/*.deb "$HOME_DIR"/rootfs/var/lib/apt/lists/*
		echo "$PACKAGES" >"$HOME_DIR/packages"
		podman rmi -f docker.io/library/redis:7 localhost/debian-local:bookworm >/dev/null 2>&1 || true
	fi
	if ! podman image exists docker.io/library/redis:7; then
		tar -C "$HOME_DIR/rootfs" -c . | podman import \
			--change 'CMD ["redis-server","--protected-mode","no"]' --change 'EXPOSE 6379' \
			- docker.io/library/redis:7 >/dev/null
		podman tag docker.io/library/redis:7 docker.io/library/redis:7.0 docker.io/library/redis:latest \
			localhost/debian-local:bookworm
	fi
	nohup podman system service --time=0 "unix://$SOCK" >"$HOME_DIR/service.log" 2>&1 &
	echo $! >"$HOME_DIR/service.pid"
	local i=0
	until curl -sf --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 100 ] || { echo "podman service did not come up: $HOME_DIR/service.log" >&2; exit 1; }
		sleep 0.2
	done
	env_lines
}

stop() {
	if running; then kill "$(cat "$HOME_DIR/service.pid")"; fi
	rm -f "$HOME_DIR/service.pid"
}

case "${1:-}" in
	start) start ;;
	stop) stop ;;
	env) running && env_lines || { echo "not running: bash $0 start" >&2; exit 1; } ;;
	*) echo "usage: bash $0 start|env|stop" >&2; exit 2 ;;
esac
