import * as oauth from 'oauth4webapi';

/** oauth4webapi pointed at a test server over plain HTTP on 127.0.0.1. */
export function oauthClient(baseUrl: string, clientId = 'fieldops-cli', secret?: string) {
  const as: oauth.AuthorizationServer = {
    issuer: baseUrl,
    token_endpoint: `${baseUrl}/oauth2/token/`,
    authorization_endpoint: `${baseUrl}/oauth2/authorize/`,
    revocation_endpoint: `${baseUrl}/oauth2/revoke_token/`,
  };
  const client: oauth.Client = { client_id: clientId };
  const auth = secret ? oauth.ClientSecretBasic(secret) : oauth.None();
  const options = { [oauth.allowInsecureRequests]: true };
  return {
    as,
    client,
    async password(username: string, password: string) {
      const response = await oauth.genericTokenEndpointRequest(as, client, auth, 'password', { username, password }, options);
      return oauth.processGenericTokenEndpointResponse(as, client, response);
    },
    async refresh(refreshToken: string) {
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, options);
      return oauth.processRefreshTokenResponse(as, client, response);
    },
    async exchange(callback: string, redirectUri: string, verifier: string | typeof oauth.nopkce, state?: string) {
      const params = oauth.validateAuthResponse(as, client, new URL(callback), state ?? oauth.expectNoState);
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, options);
      return oauth.processAuthorizationCodeResponse(as, client, response);
    },
    async revoke(token: string) {
      const response = await oauth.revocationRequest(as, client, auth, token, options);
      return oauth.processRevocationResponse(response);
    },
  };
}

export { oauth };
