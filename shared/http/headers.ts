import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * Every value a request header was sent with, whatever the case of its name, from API Gateway's
 * multi-value map (the single-value map keeps only the last one). Repeated headers are visible
 * here, so they can be refused rather than resolved by picking one.
 */
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
