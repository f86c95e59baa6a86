export function double(x: number): number {
  return x * 2;
}

export const triple = (x: number) => x * 3;
