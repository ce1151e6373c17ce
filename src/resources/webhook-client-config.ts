import { field, type FieldErrorList } from '../api/field-errors';
import { stringOf as str } from '../api/json-read';
import { isDns1123Subdomain } from '../api/name-validation';
import { isPlainObject } from '../api/types';
import { parseURL } from '../cel/library/go-url';

/** ValidateWebhookURL's hint, on the errors about what the URL must be. */
const FORM = '; desired format: https://host[/path]';

/**
 * ValidateWebhookURL (k8s.io/apiserver pkg/util/webhook) with forceHttps: the URL read as Go's
 * url.Parse reads it, so that what passes here is what the webhook client dials, never a plain
 * HTTP one, another host than the one written, or credentials in the URL.
 */
export function validateWebhookUrl(raw: string, path: string): FieldErrorList {
  let url: ReturnType<typeof parseURL>;
  try {
    url = parseURL(raw);
  } catch (err) {
    return [field.required(path, `url must be a valid URL: ${(err as Error).message}${FORM}`)];
  }
  const errs: FieldErrorList = [];
  if (url.scheme !== 'https') errs.push(field.invalid(path, url.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!url.host) errs.push(field.invalid(path, url.host, `host must be specified${FORM}`));
  if (url.user !== null) errs.push(field.invalid(path, url.user, 'user information is not permitted in the URL'));
  if (url.fragment) errs.push(field.invalid(path, url.fragment, 'fragments are not permitted in the URL'));
  if (url.rawQuery) errs.push(field.invalid(path, url.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** ValidateWebhookService: a name, a namespace, a port (defaulted to 443 before), a path of DNS subdomain segments. */
export function validateWebhookService(service: Record<string, unknown>, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!str(service.name)) errs.push(field.required(`${path}.name`));
  if (!str(service.namespace)) errs.push(field.required(`${path}.namespace`));
  const port = service.port;
  if (typeof port === 'number' && (port < 1 || port > 65535))
    errs.push(field.invalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const p = service.path;
  if (typeof p !== 'string' || p === '' || p === '/') return errs;
  if (p === '//') return [...errs, field.invalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(field.invalid(`${path}.path`, p, "must start with a '/'"));
  p.slice(1)
    .replace(/\/$/, '')
    .split('/')
    .forEach((step, i) => {
      if (!step) errs.push(field.invalid(`${path}.path`, p, `segment[${i}] may not be empty`));
      else for (const msg of isDns1123Subdomain(step)) errs.push(field.invalid(`${path}.path`, p, `segment[${i}]: ${msg}`));
    });
  return errs;
}

/** The check both webhook kinds make of a client config: exactly one of url and service, each valid. */
export function validateWebhookClientConfig(config: unknown, path: string): FieldErrorList {
  const cc = isPlainObject(config) ? config : {};
  const hasUrl = typeof cc.url === 'string';
  const hasService = isPlainObject(cc.service);
  if (hasUrl === hasService) return [field.required(path, 'exactly one of url or service is required')];
  return hasUrl ? validateWebhookUrl(cc.url as string, `${path}.url`) : validateWebhookService(cc.service as Record<string, unknown>, `${path}.service`);
}
