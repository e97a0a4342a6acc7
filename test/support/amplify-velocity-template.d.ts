declare module 'amplify-velocity-template' {
  /** AWS Amplify's Velocity engine (CommonJS). */
  const velocity: {
    /** Renders a Velocity template with `context` as its variables. */
    render(
      template: string,
      context: Record<string, unknown>,
      macros?: Record<string, unknown>,
      config?: { escape?: boolean },
    ): string;
  };
  export default velocity;
}
