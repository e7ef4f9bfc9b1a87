# Shared by the build-cost scripts (sourced, not run): timing helpers and the one-tool rmcp
# server's tool code, so every script measures the same tool written the same way.

# Time a command in seconds (one decimal); a failed build stops the script with its output.
secs() {
  local s e log; s=$(date +%s.%N)
  if ! log=$("$@" 2>&1); then echo "$log" >&2; echo "failed: $*" >&2; kill $$; exit 1; fi
  e=$(date +%s.%N); printf "%.1f\n" "$(echo "$e - $s" | bc)"
}

# The median of the numbers on stdin, one decimal.
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m}'; }

# The greet tool and its server handler in rmcp's own style (`#[tool_router]`, `#[tool_handler]`),
# without `use` lines or `main`; the greeting ends in EDIT0, which edit rebuilds rewrite.
rmcp_greeter() {
  cat <<'RS'

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[derive(Clone)]
struct Greeter;

#[tool_router]
impl Greeter {
    #[tool(description = "Greets someone.")]
    async fn greet(&self, Parameters(GreetArgs { name }): Parameters<GreetArgs>) -> String {
        format!("Hello, {name}! EDIT0")
    }
}

#[tool_handler]
impl ServerHandler for Greeter {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
RS
}

# Profile lines for the workspace manifest that build the named packages (this project's crates,
# path dependencies here) the way cargo builds a crates.io dependency: without incremental state.
# Cargo compiles path dependencies incrementally, which costs a clean build more time (the
# dependency graph and query caches written out: about a fifth of oxmcp-schema's time here), while
# a server that depends on the published crates pays what rmcp's side pays for rmcp.
# AS_PATH_DEPS=1 leaves them incremental, as path dependencies are built.
registry_profile() {
  [ -n "${AS_PATH_DEPS:-}" ] && return 0
  local p
  for p in "$@"; do printf '\n[profile.dev.package.%s]\nincremental = false\n' "$p"; done
}
