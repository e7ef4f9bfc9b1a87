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
