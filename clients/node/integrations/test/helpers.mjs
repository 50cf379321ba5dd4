// SPDX-License-Identifier: Apache-2.0
// Shared by the integration tests: the live server tests/sh/integrations_node.sh
// started (AGENTMEM_URL, AGENTMEM_TOKEN_A/B/C, AGENTMEM_USER_A/B/C) and raw
// HTTP reads that check what really landed in agentmem.
import { randomUUID } from 'node:crypto';

export const URL = process.env.AGENTMEM_URL;
export const TOKEN_A = process.env.AGENTMEM_TOKEN_A;
export const TOKEN_B = process.env.AGENTMEM_TOKEN_B;
export const USER_A = process.env.AGENTMEM_USER_A;
export const USER_B = process.env.AGENTMEM_USER_B;
if (!URL || !TOKEN_A || !TOKEN_B || !USER_A || !USER_B)
  throw new Error('AGENTMEM_URL and AGENTMEM_TOKEN_A/B, AGENTMEM_USER_A/B are required ' +
    '(bash tests/sh/integrations_node.sh build/agentmem starts a server and sets them)');

// a label no other test run uses (namespaces, keys)
export function fresh(prefix) { return `${prefix}-${randomUUID().slice(0, 8)}`; }

// GET path with the token -> {status, body}
export async function raw(path, token = TOKEN_A) {
  const res = await fetch(`${URL}${path}`, {
    headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(15000),
  });
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: res.status, body };
}

// the token user's current memories whose metadata KEY is VALUE
export async function memoriesWhere(key, value, token = TOKEN_A) {
  const q = new URLSearchParams({ [`metadata.${key}`]: value });
  const { status, body } = await raw(`/v1/memories?${q}`, token);
  if (status !== 200) throw new Error(`GET /v1/memories: ${status} ${JSON.stringify(body)}`);
  return body;
}
