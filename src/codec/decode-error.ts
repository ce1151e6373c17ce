/** A body that could not be read in its declared format; the handler names the expected kind. */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}
