# Shared by scripts/run and scripts/test (sourced, not run).
#
# ensure_packages PKG...   install the Debian packages of the list that are
#                          missing; as a user without sudo, print the exact
#                          apt-get line instead and fail
# quiet LOG CMD...         run CMD with its output in LOG; on failure print
#                          the LOG (the step's own error) and fail
#
# The caller sets PROG (the prefix of every message).

# Exit statuses of the scripts (also in README.md).
EXIT_SETUP=3 # a package, the configuration or the build failed

say() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: %s\n' "$PROG" "$*" >&2; }

quiet() {
	local log=$1
	shift
	if "$@" >"$log" 2>&1; then
		return 0
	fi
	warn "failed: $*"
	warn "its output (also in $log):"
	tail -n 40 "$log" | sed 's/^/    /' >&2
	return 1
}

missing_packages() {
	local pkg
	for pkg; do
		[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] ||
			printf '%s\n' "$pkg"
	done
}

# true when apt has package lists (a fresh machine has none until an update)
apt_has_lists() {
	compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null
}

ensure_packages() {
	command -v dpkg-query >/dev/null && command -v apt-get >/dev/null || {
		say "not a Debian system: make sure these (or their equivalents) are installed: $*"
		return 0
	}
	local missing sudo=() log
	mapfile -t missing < <(missing_packages "$@")
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null && { [ -t 0 ] || sudo -n true 2>/dev/null; }; then
			sudo=(sudo)
		else
			warn "missing Debian packages: ${missing[*]}"
			warn "install them as root, then run this again:"
			warn "  apt-get install ${missing[*]}"
			return 1
		fi
	fi
	say "installing ${missing[*]}"
	log=$(mktemp "${TMPDIR:-/tmp}/elffs-apt.XXXXXX")
	export DEBIAN_FRONTEND=noninteractive
	if ! apt_has_lists; then
		quiet "$log" "${sudo[@]}" apt-get update || return 1
	fi
	if ! "${sudo[@]}" apt-get install -y -q "${missing[@]}" >"$log" 2>&1; then
		# stale lists (a package moved on the mirror): update once and retry
		quiet "$log" "${sudo[@]}" apt-get update &&
			quiet "$log" "${sudo[@]}" apt-get install -y -q "${missing[@]}" || return 1
	fi
	rm -f "$log"
	mapfile -t missing < <(missing_packages "$@")
	if [ ${#missing[@]} -ne 0 ]; then
		warn "apt-get finished but these are still not installed: ${missing[*]}"
		return 1
	fi
}
