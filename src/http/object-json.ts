/**
 * The JSON of objects shared by every reader (the watch cache's, which never change), as UTF-8
 * bytes kept as long as the object lives, so that watch events to many watchers and lists copy it
 * rather than encode it again.
 */

const jsonOfObject = new WeakMap<object, Buffer>();

/** The object's JSON, encoded now and kept if it was not already. */
export function objectJson(object: object): Buffer {
  let json = jsonOfObject.get(object);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(object));
    jsonOfObject.set(object, json);
  }
  return json;
}

/** The object's JSON if it is kept, without keeping it otherwise. */
export function keptObjectJson(object: object): Buffer | undefined {
  return jsonOfObject.get(object);
}
