import type { APIGatewayProxyEvent } from 'aws-lambda';

/** Every value a header was sent with, any case, from the multi-value map (the other keeps the last). */
export const headerValues = (
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>,
  name: string,
): string[] => {
  const wanted = name.toLowerCase();
  const matching = <T>(map: Readonly<Record<string, T>> | null | undefined): T[] =>
    Object.entries(map ?? {})
      .filter(([key]) => key.toLowerCase() === wanted)
      .map(([, value]) => value);
  const multi = matching(event.multiValueHeaders).flatMap((values) => values ?? []);
  if (multi.length > 0) return multi;
  return matching(event.headers).filter((value): value is string => typeof value === 'string');
};
