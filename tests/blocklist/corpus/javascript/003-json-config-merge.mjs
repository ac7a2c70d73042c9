// Deep-merge layered JSON configuration (defaults < file < overrides) and print the result.
const defaultsJson = '{"server":{"host":"localhost","port":8080,"tls":false},"log":{"level":"info","targets":["stdout"]},"features":{}}';
const fileJson = `{
  "server": { "port": 9090, "tls": true },
  "log": { "targets": ["stdout", "file"] },
  "features": { "beta": true, "quote\\"d": "yes" }
}`;
const overridesJson = '{"log":{"level":"debug"},"features":{"beta":false}}';

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function deepMerge(target, source) {
  const out = { ...target };
  for (const [key, value] of Object.entries(source)) {
    if (isPlainObject(value) && isPlainObject(out[key])) {
      out[key] = deepMerge(out[key], value);
    } else {
      out[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  return out;
}

function flatten(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) =>
    isPlainObject(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]
  );
}

const layers = [defaultsJson, fileJson, overridesJson].map((s, i) => {
  try {
    return JSON.parse(s);
  } catch (err) {
    console.error(`layer ${i} is invalid: ${err.message}`);
    return {};
  }
});

const config = layers.reduce(deepMerge, {});
console.log(JSON.stringify(config, null, 2));
console.log('--- flattened ---');
for (const [k, v] of flatten(config)) console.log(`${k} = ${JSON.stringify(v)}`);

// Validate a few expectations
const problems = [];
if (config.server.port !== 9090) problems.push('port');
if (config.log.level !== 'debug') problems.push('log level');
if (config.features['quote"d'] !== 'yes') problems.push('escaped key');
console.log(problems.length ? `Problems: ${problems}` : 'Config OK');
