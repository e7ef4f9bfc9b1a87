// The authorization server of the client's login tests: oauth2-mock-server, a standalone
// OAuth 2.0 / OpenID Connect server that signs its JWTs with keys of its own (published at its
// JWKS endpoint), approves every authorization request without a user and checks PKCE. The
// hooks below make its tokens what an MCP server checks: the scope the authorization request
// asked for (kept across refreshes), the audience of the `resource` the token request names,
// and a lifetime of OAUTH_TOKEN_TTL seconds as the token response states it.
//
// Run by tests/tests/oauth_login.rs with OAUTH2_MOCK_SERVER set to the package's entry point.
// Prints the issuer on its first line, then one line per token issued: `grant <type> scope
// <scope>`.
const { OAuth2Server } = await import(process.env.OAUTH2_MOCK_SERVER);
const ttl = Number(process.env.OAUTH_TOKEN_TTL ?? '3600');

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');

// Authorization code -> the scope asked for; refresh token -> the scope it carries.
const scopeOfCode = new Map();
const scopeOfRefresh = new Map();
const granted = new WeakMap();

server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  const query = new URL(req.url, 'http://localhost').searchParams;
  if (code) scopeOfCode.set(code, query.get('scope') ?? '');
});

server.service.on('beforeTokenSigning', (token, req) => {
  const body = req.body ?? {};
  let scope = body.scope ?? '';
  if (body.grant_type === 'authorization_code') scope = scopeOfCode.get(body.code) ?? '';
  if (body.grant_type === 'refresh_token') scope = scopeOfRefresh.get(body.refresh_token) ?? '';
  granted.set(req, scope);
  token.payload.scope = scope;
  if (body.resource) token.payload.aud = body.resource;
});

server.service.on('beforeResponse', (response, req) => {
  const body = req.body ?? {};
  const scope = granted.get(req) ?? '';
  response.body.scope = scope;
  response.body.expires_in = ttl;
  if (response.body.refresh_token) scopeOfRefresh.set(response.body.refresh_token, scope);
  console.log(`grant ${body.grant_type} scope ${scope}`);
});

await server.start(0, '127.0.0.1');
console.log(server.issuer.url);
