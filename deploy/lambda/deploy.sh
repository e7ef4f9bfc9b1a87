#!/usr/bin/env bash
# Deploy examples/lambda as a function with a streamed function URL. Needs cargo-lambda
# (pip install cargo-lambda), the AWS CLI and credentials allowed to create roles and functions.
# MCP_STATE_KEYS must be set here (`1:$(openssl rand -hex 32)`, kept in a secret store); the
# other settings come from environment.json. Usage: deploy/lambda/deploy.sh [REGION]
set -euo pipefail
cd "$(dirname "$0")/../.."
region=${1:-${AWS_REGION:-eu-west-1}}
name=oxmcp-lambda-example
: "${MCP_STATE_KEYS:?set MCP_STATE_KEYS to the key ring every instance shares}"

role_arn=$(aws iam get-role --role-name "$name" --query Role.Arn --output text 2>/dev/null || true)
if [ -z "$role_arn" ] || [ "$role_arn" = None ]; then
  role_arn=$(aws iam create-role --role-name "$name" \
    --assume-role-policy-document file://deploy/lambda/trust-policy.json --query Role.Arn --output text)
  aws iam put-role-policy --role-name "$name" --policy-name "$name" \
    --policy-document file://deploy/lambda/execution-policy.json
  sleep 10 # a new role takes a moment to be usable by Lambda
fi

# Graviton (arm64) starts sooner and costs less; the release build is what runs.
cargo lambda build --release --arm64 -p "$name"
env_vars=$(python3 - <<'PY'
import json, os
env = json.load(open("deploy/lambda/environment.json"))["Variables"]
env["MCP_STATE_KEYS"] = os.environ["MCP_STATE_KEYS"]
if os.environ.get("MCP_TASK_STORE"):
    env["MCP_TASK_STORE"] = os.environ["MCP_TASK_STORE"]
else:
    env.pop("MCP_TASK_STORE")
print(",".join(f"{k}={v}" for k, v in env.items()))
PY
)
cargo lambda deploy --region "$region" --iam-role "$role_arn" --timeout 60 --memory 256 \
  --env-var "$env_vars" --enable-function-url --binary-name "$name" "$name"
# Streamed responses (progress and subscription streams): the URL's invoke mode.
aws lambda update-function-url-config --region "$region" --function-name "$name" \
  --cli-input-json file://deploy/lambda/function-url.json
aws lambda get-function-url-config --region "$region" --function-name "$name" --query FunctionUrl --output text
