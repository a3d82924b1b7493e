-- Projects, their users, secret keys, mail templates, newsletters and the ticket directory.
CREATE TABLE projects (
  service_id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  owner_key_hash TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  active INTEGER NOT NULL DEFAULT 1,
  plan TEXT NOT NULL DEFAULT 'free',
  identity TEXT,                 -- JSON: external OIDC issuer { issuer, audience, jwks_url } or null
  dev_public_jwk TEXT NOT NULL,  -- built-in issuer's public key (JWK JSON)
  dev_private_jwk_enc TEXT NOT NULL,
  secure_request_key_enc TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);

CREATE TABLE users (
  service_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  email TEXT,
  attributes TEXT NOT NULL DEFAULT '{}',
  access_group INTEGER NOT NULL DEFAULT 1,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, user_id)
);

CREATE TABLE secret_keys (
  service_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value_enc TEXT NOT NULL,
  destinations TEXT NOT NULL DEFAULT '[]',
  access_group INTEGER NOT NULL DEFAULT 0,
  locked INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, name)
);

CREATE TABLE mail_templates (
  service_id TEXT NOT NULL,
  template_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  html TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, template_id)
);

-- grp: 'public', 'authorized', a number 2..99 written in decimal, or a named group.
CREATE TABLE newsletters (
  service_id TEXT NOT NULL,
  grp TEXT NOT NULL,
  message_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  html TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, grp, message_id)
);

CREATE TABLE subscribers (
  service_id TEXT NOT NULL,
  grp TEXT NOT NULL,
  email TEXT NOT NULL,
  user_id TEXT,
  created INTEGER NOT NULL,
  PRIMARY KEY (service_id, grp, email)
);

-- The listing copy of each ticket; the TicketDO holds the definition the engine runs.
CREATE TABLE tickets (
  service_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  definition TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, ticket_id)
);
