// Feature-flag configuration using `as const`, `satisfies`, template literal types and key remapping.
type Env = 'dev' | 'staging' | 'prod';
type Rollout = { kind: 'off' } | { kind: 'on' } | { kind: 'percent'; value: number } | { kind: 'allowlist'; users: readonly string[] };

interface FlagSpec {
  description: string;
  owner: `${string}@example.com`;
  rollout: Record<Env, Rollout>;
}

const flags = {
  newCheckout: {
    description: 'Single-page checkout flow',
    owner: 'payments@example.com',
    rollout: { dev: { kind: 'on' }, staging: { kind: 'percent', value: 50 }, prod: { kind: 'percent', value: 10 } },
  },
  darkMode: {
    description: 'Dark colour scheme',
    owner: 'design@example.com',
    rollout: { dev: { kind: 'on' }, staging: { kind: 'on' }, prod: { kind: 'on' } },
  },
  aiSummaries: {
    description: 'Summaries of long threads',
    owner: 'ml@example.com',
    rollout: { dev: { kind: 'on' }, staging: { kind: 'allowlist', users: ['u-7', 'u-42'] }, prod: { kind: 'off' } },
  },
} as const satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof flags;
type FlagGetters = { [K in FlagName as `is${Capitalize<K>}Enabled`]: (userId: string) => boolean };

// Stable hash so a user always lands in the same percentage bucket.
function bucket(flag: string, userId: string): number {
  let h = 2166136261;
  for (const ch of `${flag}:${userId}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h % 100;
}

function enabled(flag: FlagName, env: Env, userId: string): boolean {
  const r: Rollout = flags[flag].rollout[env];
  switch (r.kind) {
    case 'off': return false;
    case 'on': return true;
    case 'percent': return bucket(flag, userId) < r.value;
    case 'allowlist': return r.users.includes(userId);
  }
}

function gettersFor(env: Env): FlagGetters {
  const entries = (Object.keys(flags) as FlagName[]).map((name) => [
    `is${name[0].toUpperCase()}${name.slice(1)}Enabled`,
    (userId: string) => enabled(name, env, userId),
  ]);
  return Object.fromEntries(entries) as FlagGetters;
}

const users = Array.from({ length: 200 }, (_, i) => `u-${i}`);
for (const env of ['dev', 'staging', 'prod'] as const) {
  const g = gettersFor(env);
  const counts = {
    newCheckout: users.filter(g.isNewCheckoutEnabled).length,
    darkMode: users.filter(g.isDarkModeEnabled).length,
    aiSummaries: users.filter(g.isAiSummariesEnabled).length,
  } satisfies Record<FlagName, number>;
  console.log(`${env.padEnd(8)} ${Object.entries(counts).map(([k, n]) => `${k}=${((n / users.length) * 100).toFixed(0)}%`).join('  ')}`);
}

const prod = gettersFor('prod');
console.log(`u-42 in prod: checkout=${prod.isNewCheckoutEnabled('u-42')} ai=${prod.isAiSummariesEnabled('u-42')}`);
console.log('owners:', [...new Set(Object.values(flags).map((f) => f.owner.replace(/@.*/, '')))].join(', '));
console.log(JSON.stringify(flags.aiSummaries.rollout));
