// Shared by the four suites: a kapi with the sample's CRD, and small requests against it.
const path = require('node:path');
const { startKapi } = require('kapi/testing');

exports.startWithCrds = () => startKapi({ crds: path.join(__dirname, '..', 'crds') });

exports.api = async (kapi, method, urlPath, body) => {
  const res = await fetch(`${kapi.url}${urlPath}`, {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

exports.widget = (name, size) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size } });
