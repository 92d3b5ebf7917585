/** An event that cannot apply to the mission as it stands; the mission is left unchanged. */
export class IllegalEventError extends Error {
  override readonly name = "IllegalEventError";
  readonly event: string;

  constructor(event: string, message: string) {
    super(`${event}: ${message}`);
    this.event = event;
  }
}
